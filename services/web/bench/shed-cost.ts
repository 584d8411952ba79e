// `npm run bench:shed -w @app/web`: the server's CPU time per refused request (503 + Retry-After), what decides how
// fast refusals stay when most of an overload is refusals (docs/decisions/008-load-shedding-and-liveness.md). The
// service runs as deployed (Sentry on, tracesSampleRate 0.1) with SHED_MAX_IN_FLIGHT=1 and one request held open (a
// POST whose body never comes), so every other request is refused; wrk (pinned to core 1) asks for a page over
// keep-alive connections and the server's CPU time (pinned to core 0, from /proc) is divided by the refusals.
//
// Env: BENCH_BASELINE (the services/web folder of another checkout, built: its server runs in the same rounds, and at
// once beside this one), BENCH_ROUNDS (5), BENCH_SECONDS (5), BENCH_CONNECTIONS (32).
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { median, parseWrkOutput, startCaptureServer } from '@app/test-kit';

const root = new URL('..', import.meta.url).pathname;
const BASELINE = process.env.BENCH_BASELINE;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const PAGE = '/catalog?limit=50';

interface Server {
  name: string;
  child: ChildProcess;
  port: number;
  held: Socket;
}

/** utime + stime of a process in µs (fields 14 and 15 of /proc/<pid>/stat, after the command's parentheses). */
function cpuTimeUs(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

async function start(name: string, cwd: string, dsn: string): Promise<Server> {
  const child = spawn(
    'taskset',
    ['-c', '0', process.execPath, '--import', './dist/server/instrument.js', './dist/server/main.js'],
    {
      cwd,
      env: {
        ...process.env,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
        SENTRY_DSN: dsn,
        SENTRY_TRACES_SAMPLE_RATE: '0.1',
        SHED_MAX_IN_FLIGHT: '1',
        REQUEST_TIMEOUT_MS: '600000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let seen = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start: ${seen}`)), 20_000);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const found = /Server listening.*?(?:127\.0\.0\.1:|"port":)(\d+)/.exec(seen)?.[1];
      if (found) {
        clearTimeout(timer);
        resolve(Number(found));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
  });
  // Keep draining the logs without keeping them.
  child.stdout?.removeAllListeners('data').resume();
  child.stderr?.removeAllListeners('data').resume();
  const held = connect(port, '127.0.0.1');
  await once(held, 'connect');
  held.write(
    'POST /preferences HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n' +
      'Content-Length: 100\r\n\r\n',
  );
  // Past the start's grace (load-shedding.ts counts pressure from 2 s after ready), then check every page is refused.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  const status = (await fetch(`http://127.0.0.1:${port}${PAGE}`)).status;
  if (status !== 503) throw new Error(`${name}: a page got ${status} with a request held in flight, not 503`);
  return { name, child, port, held };
}

/** wrk for SECONDS against the server: refusals answered and the server's CPU µs per refusal. */
async function hammer(server: Server): Promise<{ refusals: number; cpuUs: number; rps: number }> {
  const before = cpuTimeUs(server.child.pid);
  const wrk = spawn(
    'taskset',
    ['-c', '1', 'wrk', '-t1', `-c${CONNECTIONS}`, `-d${SECONDS}s`, `http://127.0.0.1:${server.port}${PAGE}`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  wrk.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const [code] = (await once(wrk, 'exit')) as [number | null];
  const cpu = cpuTimeUs(server.child.pid) - before;
  if (code !== 0) throw new Error(`wrk exited ${code} for ${server.name}`);
  const { requests, non2xx: refusals, rps } = parseWrkOutput(out);
  if (refusals !== requests) throw new Error(`${server.name}: ${requests - refusals} of ${requests} not refused`);
  return { refusals, cpuUs: cpu / refusals, rps };
}

async function main(): Promise<void> {
  const capture = await startCaptureServer();
  const servers = [await start('this tree', root, capture.dsn())];
  if (BASELINE) servers.push(await start('baseline', BASELINE, capture.dsn()));
  const perRefusal = new Map<string, number[]>();
  const atOnce: number[] = [];
  const show = (label: string, r: { refusals: number; cpuUs: number; rps: number }) =>
    console.log(`${label.padEnd(34)} ${r.rps.toFixed(0).padStart(6)} refusals/s  CPU ${r.cpuUs.toFixed(0)} µs/refusal`);
  try {
    for (const server of servers) await hammer(server); // warm-up (JIT), not recorded
    for (let round = 1; round <= ROUNDS; round++) {
      for (const server of servers) {
        const result = await hammer(server);
        perRefusal.set(server.name, [...(perRefusal.get(server.name) ?? []), result.cpuUs]);
        show(`round ${round} ${server.name}`, result);
      }
    }
    // Both at once (two wrk on core 1, both servers sharing core 0): the same neighbours for both.
    const [ours, theirs] = servers;
    for (let round = 1; ours && theirs && round <= ROUNDS; round++) {
      const [a, b] = await Promise.all([hammer(ours), hammer(theirs)]);
      atOnce.push(a.cpuUs / b.cpuUs);
      show(`at once ${round} ${ours.name}`, a);
      show(`at once ${round} ${theirs.name}`, b);
    }
  } finally {
    for (const server of servers) {
      server.held.destroy();
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
    }
    await capture.close();
  }
  console.log(`\nmedians of ${ROUNDS} rounds, ${SECONDS} s each, ${CONNECTIONS} keep-alive connections, ${PAGE}:`);
  for (const [name, values] of perRefusal) {
    const all = values.map((v) => v.toFixed(0)).join(', ');
    console.log(`  ${name.padEnd(10)} CPU ${median(values).toFixed(0)} µs per refusal (${all})`);
  }
  const [ours, theirs] = [...perRefusal.values()];
  if (ours && theirs) {
    const ratios = ours.map((v, i) => v / (theirs[i] ?? Number.NaN));
    const rounds = ratios.map((r) => r.toFixed(2)).join(', ');
    console.log(`  this tree / baseline, interleaved: ${median(ratios).toFixed(2)} (${rounds})`);
    const paired = atOnce.map((r) => r.toFixed(2)).join(', ');
    console.log(`  this tree / baseline, at once:     ${median(atOnce).toFixed(2)} (${paired})`);
  }
}

await main();
