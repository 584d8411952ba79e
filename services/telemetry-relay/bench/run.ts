// npm run bench -w @app/telemetry-relay
//
// One run, interleaved rounds (A B C D A B C D …): the proxy under test pinned to CPU 0, the load generator (wrk)
// and the upstream sink pinned to CPU 1. Contenders: nginx proxy_pass (one worker, keep-alive upstream) — the
// near-limit pass-through; the naive tunnel from the docs; the peers a user would pick instead (peers.ts: Fastify +
// undici, header-only and parsing every item); the relay in fast mode and in durable mode (filtering and data
// scrubbing on, the defaults), in fast mode with an event that scrubbing changes, and in fast mode with both off. Then: p50/p99 of each at the naive tunnel's throughput (open loop, fixed rate), event-loop
// blocking while 10 MiB envelopes with 100 attachments go through, peak RSS, and (BENCH_SOAK_SECONDS) RSS over a
// long run. Absolute numbers depend on the machine and its neighbours; the ratios are what to compare.
//
// Env: BENCH_ROUNDS (3), BENCH_SECONDS (10), BENCH_CONNECTIONS (50), BENCH_SOAK_SECONDS (0 = skip),
// BENCH_BASELINE (the src/main.ts of another checkout of the relay, e.g. a `git worktree` of main: run beside this one
// in the same rounds, so a change is measured against what it replaces on the same machine at the same time),
// BENCH_ONLY (comma-separated parts of contender names, e.g. `peer,fast`: only those run the rounds, and the open-loop
// latency section is skipped — more rounds of an A/B in the same time).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, median, parseWrkOutput } from '@app/test-kit';
import { passErrors } from './child-output.ts';
import { browserErrorEnvelope, largeEnvelope } from './envelopes.ts';
import { fastifyPeers, PEER_DSN, printPeerRatios, RELAY_RUNTIME_ENV } from './peers.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const relayMain = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const soakSeconds = Number(process.env.BENCH_SOAK_SECONDS ?? 0);
const baselineMain = process.env.BENCH_BASELINE;
const only = process.env.BENCH_ONLY?.split(',').filter((part) => part !== '');
const work = mkdtempSync(join(tmpdir(), 'relay-bench-'));
const children: ChildProcess[] = [];

function which(tool: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/sbin', '/usr/bin'])) {
    try {
      execFileSync('test', ['-x', join(dir, tool)]);
      return join(dir, tool);
    } catch {}
  }
  return undefined;
}

/** wrk, nginx and taskset from Debian; installed when missing and we may (root + apt), else a clear message. */
function tools(): { wrk: string; nginx: string; taskset: string } {
  const packages: Record<string, string> = { wrk: 'wrk', nginx: 'nginx-light', taskset: 'util-linux' };
  let found = Object.fromEntries(Object.keys(packages).map((t) => [t, which(t)]));
  const missing = Object.keys(packages).filter((t) => !found[t]);
  if (missing.length > 0 && process.getuid?.() === 0 && which('apt-get')) {
    console.log(`installing ${missing.map((t) => packages[t]).join(' ')} from Debian…`);
    execFileSync(
      'apt-get',
      ['install', '-y', '-qq', '--no-install-recommends', ...missing.map((t) => packages[t] as string)],
      {
        stdio: 'inherit',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      },
    );
    found = Object.fromEntries(Object.keys(packages).map((t) => [t, which(t)]));
  }
  const still = Object.keys(packages).filter((t) => !found[t]);
  if (still.length > 0) {
    console.error(
      `The benchmark needs ${still.join(', ')}. Install them with: sudo apt-get install ${still.map((t) => packages[t]).join(' ')}`,
    );
    process.exit(2);
  }
  return found as { wrk: string; nginx: string; taskset: string };
}

function launch(command: string, args: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  passErrors(child);
  children.push(child);
  return child;
}

async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * CPU seconds a process has used, user and system: per envelope it is steadier than throughput on a shared machine.
 * User time is the process's own code (JavaScript, V8, libuv); system time is mostly the kernel's socket work, which
 * also pays for waking the reader on the other CPU.
 */
function cpuSeconds(pid: number): { user: number; total: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const user = Number(fields[11]) / 100; // utime, stime (fields 14, 15) in USER_HZ ticks
  return { user, total: user + Number(fields[12]) / 100 };
}

function status(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

interface WrkResult {
  rps: number;
  /** Envelopes the upstream sink received per second during the round (the relay answers before forwarding). */
  upstream: number;
  /** CPU time of the proxy per envelope answered, µs. */
  cpuUs: number;
  /** The user part of it. */
  userUs: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** wrk on CPU 1 posting the envelope in `bodyFile` to `url` for `seconds`. */
const wrkArgs = (bin: { wrk: string }, url: string, bodyFile: string, seconds: number) => [
  '-c',
  '1',
  bin.wrk,
  '-t1',
  `-c${connections}`,
  `-d${seconds}s`,
  '--latency',
  '-s',
  join(here, 'post.lua'),
  url,
  '--',
  bodyFile,
];

function wrk(bin: { wrk: string; taskset: string }, url: string, body: string, duration: number): WrkResult {
  const output = execFileSync(bin.taskset, wrkArgs(bin, url, body, duration), { encoding: 'utf8' });
  const { rps, p50Ms, p99Ms, non2xx, socketErrors } = parseWrkOutput(output);
  return {
    upstream: 0,
    cpuUs: 0,
    userUs: 0,
    rps,
    p50: p50Ms,
    p99: p99Ms,
    non2xx,
    errors: socketErrors.connect + socketErrors.read + socketErrors.write + socketErrors.timeout,
  };
}

async function main(): Promise<void> {
  const bin = tools();
  const node = process.execPath;
  const sinkPort = await freePort();
  launch(bin.taskset, ['-c', '1', node, join(here, 'sink.ts')], { PORT: String(sinkPort) });
  const dsn = `http://benchkey@127.0.0.1:${sinkPort}/1`;
  const bodyFile = join(work, 'envelope.txt');
  const envelope = browserErrorEnvelope(dsn);
  writeFileSync(bodyFile, envelope);

  // nginx: one worker, keep-alive to the upstream, body kept in memory, no access log (the relay samples its own).
  const nginxPort = await freePort();
  writeFileSync(
    join(work, 'nginx.conf'),
    `worker_processes 1;
daemon off;
pid ${work}/nginx.pid;
error_log ${work}/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${work}/client_body;
  proxy_temp_path ${work}/proxy;
  fastcgi_temp_path ${work}/fastcgi; uwsgi_temp_path ${work}/uwsgi; scgi_temp_path ${work}/scgi;
  upstream sink { server 127.0.0.1:${sinkPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${nginxPort};
    client_max_body_size 20m;
    client_body_buffer_size 64k;
    location = /monitoring {
      proxy_pass http://sink/api/1/envelope/;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Content-Type application/x-sentry-envelope;
    }
  }
}
`,
  );
  const nginx = launch(bin.taskset, ['-c', '0', bin.nginx, '-p', work, '-c', join(work, 'nginx.conf')]);

  const naivePort = await freePort();
  const naive = launch(bin.taskset, ['-c', '0', node, join(here, 'naive-tunnel.ts')], { PORT: String(naivePort) });

  // The same envelope with the one DSN the peers allow.
  const peerBodyFile = join(work, 'envelope-peer.txt');
  writeFileSync(peerBodyFile, browserErrorEnvelope(PEER_DSN));
  const peerSpecs = fastifyPeers(`http://127.0.0.1:${sinkPort}`, [
    await freePort(),
    await freePort(),
    await freePort(),
  ]);
  if (typeof peerSpecs === 'string') console.log(peerSpecs);
  const peers = (typeof peerSpecs === 'string' ? [] : peerSpecs).map((spec) => ({
    name: spec.name,
    url: `http://127.0.0.1:${spec.env.PORT}${spec.path}`,
    pid: launch(bin.taskset, ['-c', '0', node, spec.script], spec.env).pid as number,
    body: peerBodyFile,
  }));

  const relayEnv = (mode: string, port: number) => ({
    PORT: String(port),
    HOST: '127.0.0.1',
    ALLOWED_DSNS: dsn,
    // The path the peers and the URLs below use (the default would be the one derived from the DSN).
    TUNNEL_PATH: '/monitoring',
    SPOOL_MODE: mode,
    SPOOL_DIR: join(work, `spool-${mode}`),
    LOG_LEVEL: 'info',
    // As the image runs it (Dockerfile): 8 MiB semi-spaces, one malloc arena, a fixed mmap threshold.
    ...RELAY_RUNTIME_ENV,
  });
  const fastPort = await freePort();
  const durablePort = await freePort();
  const loopProbe = join(here, 'loop-probe.ts');
  const probeFile = (mode: string) => join(work, `loop-${mode}.txt`);
  const relay = (mode: string, port: number, main = relayMain, tag = mode, env: Record<string, string> = {}) =>
    launch(bin.taskset, ['-c', '0', node, '--import', loopProbe, main], {
      ...relayEnv(mode, port),
      SPOOL_DIR: join(work, `spool-${tag}`),
      LOOP_PROBE_FILE: probeFile(tag),
      ...env,
    });
  const fast = relay('fast', fastPort);
  // Data scrubbing and filtering off: what the defaults cost, in the same rounds (the scrubbed body measures a hit).
  const plainPort = await freePort();
  const plain = launch(bin.taskset, ['-c', '0', node, '--import', loopProbe, relayMain], {
    ...relayEnv('fast', plainPort),
    SPOOL_DIR: join(work, 'spool-plain'),
    LOOP_PROBE_FILE: probeFile('plain'),
    SCRUB_DATA: 'false',
    IGNORE_RULES: 'none',
  });
  const secretBodyFile = join(work, 'envelope-secrets.txt');
  writeFileSync(secretBodyFile, browserErrorEnvelope(dsn, true));
  const durable = relay('durable', durablePort);
  // The same relay without Relay's inbound filters (on by default): what the filters cost per envelope.
  const unfilteredPort = await freePort();
  const unfiltered = relay('fast', unfilteredPort, relayMain, 'fast-unfiltered', { INBOUND_FILTERS: 'none' });
  // Scrubbing, ignore rules and inbound filters all off: with the two rows above, what each of them costs.
  const barePort = await freePort();
  const bare = relay('fast', barePort, relayMain, 'fast-bare', {
    SCRUB_DATA: 'false',
    IGNORE_RULES: 'none',
    INBOUND_FILTERS: 'none',
  });
  // The same defaults from a projects file of 200 projects (issue 40: within 5 % of the one-project row): the bench's
  // DSN and 199 others, ten of them with scrub settings of their own, so the lookup and the compilations are real.
  const projectsFile = join(work, 'projects.json');
  const projects: Record<string, unknown> = { [dsn]: { origins: [] } };
  for (let i = 2; i <= 200; i++) {
    projects[`http://key${i}@127.0.0.1:${sinkPort}/${i}`] =
      i % 20 === 0 ? { origins: [], scrub: { sensitiveFields: [`secret_${i}`] } } : { origins: [] };
  }
  writeFileSync(projectsFile, JSON.stringify({ projects }));
  const projectsPort = await freePort();
  const { ALLOWED_DSNS: _oneProject, ...fileEnv } = relayEnv('fast', projectsPort);
  const fromFile = launch(bin.taskset, ['-c', '0', node, '--import', loopProbe, relayMain], {
    ...fileEnv,
    PROJECTS_FILE: projectsFile,
    SPOOL_DIR: join(work, 'spool-projects'),
    LOOP_PROBE_FILE: probeFile('projects'),
  });
  const baselines = baselineMain
    ? await Promise.all(
        (['fast', 'durable'] as const).map(async (mode) => {
          const port = await freePort();
          const child = relay(mode, port, baselineMain, `baseline-${mode}`);
          return {
            name: `baseline (${mode})`,
            url: `http://127.0.0.1:${port}/monitoring`,
            pid: child.pid as number,
            port,
          };
        }),
      )
    : [];

  await Promise.all([
    waitForHttp(`http://127.0.0.1:${nginxPort}/`),
    waitForHttp(`http://127.0.0.1:${naivePort}/`),
    waitForHttp(`http://127.0.0.1:${fastPort}/healthz`),
    waitForHttp(`http://127.0.0.1:${plainPort}/healthz`),
    waitForHttp(`http://127.0.0.1:${durablePort}/healthz`),
    waitForHttp(`http://127.0.0.1:${unfilteredPort}/healthz`),
    waitForHttp(`http://127.0.0.1:${barePort}/healthz`),
    waitForHttp(`http://127.0.0.1:${projectsPort}/healthz`),
    waitForHttp(`http://127.0.0.1:${sinkPort}/`),
    ...baselines.map((b) => waitForHttp(`http://127.0.0.1:${b.port}/healthz`)),
    ...peers.map((p) => waitForHttp(p.url)),
  ]);
  const sinkCount = async () =>
    ((await (await fetch(`http://127.0.0.1:${sinkPort}/count`)).json()) as { received: number }).received;
  // Between rounds: wait until the sink stops receiving (a relay may still be forwarding its backlog).
  const settle = async () => {
    let last = -1;
    for (let i = 0; i < 50; i++) {
      const now = await sinkCount();
      if (now === last) return;
      last = now;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const nginxWorker = Number(
    execFileSync('pgrep', ['-P', String(nginx.pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')[0],
  );

  const contenders: Array<{ name: string; url: string; pid: number; body?: string }> = [
    { name: 'nginx proxy_pass', url: `http://127.0.0.1:${nginxPort}/monitoring`, pid: nginxWorker },
    { name: 'naive tunnel', url: `http://127.0.0.1:${naivePort}/monitoring`, pid: naive.pid as number },
    ...peers,
    { name: 'relay (fast)', url: `http://127.0.0.1:${fastPort}/monitoring`, pid: fast.pid as number },
    {
      name: 'relay (fast, scrub hit)',
      url: `http://127.0.0.1:${fastPort}/monitoring`,
      pid: fast.pid as number,
      body: secretBodyFile,
    },
    {
      name: 'relay (fast, no scrub/filter)',
      url: `http://127.0.0.1:${plainPort}/monitoring`,
      pid: plain.pid as number,
    },
    { name: 'relay (durable)', url: `http://127.0.0.1:${durablePort}/monitoring`, pid: durable.pid as number },
    {
      name: 'relay (fast, filters off)',
      url: `http://127.0.0.1:${unfilteredPort}/monitoring`,
      pid: unfiltered.pid as number,
    },
    { name: 'relay (fast, all off)', url: `http://127.0.0.1:${barePort}/monitoring`, pid: bare.pid as number },
    {
      name: 'relay (fast, projects file)',
      url: `http://127.0.0.1:${projectsPort}/monitoring`,
      pid: fromFile.pid as number,
    },
    ...baselines.map(({ name, url, pid }) => ({ name, url, pid })),
  ].filter((c) => !only || only.some((part) => c.name.includes(part)));
  console.log(
    `envelope ${envelope.length} bytes; ${rounds} rounds × ${seconds} s, ${connections} connections; proxies on CPU 0, wrk + sink on CPU 1`,
  );
  for (const c of contenders) wrk(bin, c.url, c.body ?? bodyFile, 2); // warm-up (JIT, connections)

  const results = new Map<string, WrkResult[]>(contenders.map((c) => [c.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const c of contenders) {
      const before = await sinkCount();
      const cpuBefore = cpuSeconds(c.pid);
      const result = wrk(bin, c.url, c.body ?? bodyFile, seconds);
      result.upstream = ((await sinkCount()) - before) / seconds;
      await settle();
      const cpuAfter = cpuSeconds(c.pid);
      result.cpuUs = ((cpuAfter.total - cpuBefore.total) * 1e6) / (result.rps * seconds);
      result.userUs = ((cpuAfter.user - cpuBefore.user) * 1e6) / (result.rps * seconds);
      results.get(c.name)?.push(result);
      console.log(
        `  round ${round} ${c.name.padEnd(20)} ${result.rps.toFixed(0).padStart(6)}/s (upstream ${result.upstream.toFixed(0)}/s)  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms  CPU ${result.cpuUs.toFixed(0)} µs/env (user ${result.userUs.toFixed(0)})${result.non2xx + result.errors > 0 ? `  non-2xx ${result.non2xx} errors ${result.errors}` : ''}`,
      );
    }
  }

  const summary = contenders.map((c) => {
    const runs = results.get(c.name) ?? [];
    return {
      name: c.name,
      rps: median(runs.map((r) => r.rps)),
      upstream: median(runs.map((r) => r.upstream)),
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      cpuUs: median(runs.map((r) => r.cpuUs)),
      failed: runs.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
      peakRssMb: status(c.pid, 'VmHWM'),
    };
  });
  const base = summary.find((s) => s.name === 'nginx proxy_pass')?.rps ?? Number.NaN;
  const naiveRps = summary.find((s) => s.name === 'naive tunnel')?.rps ?? Number.NaN;
  const peerRps = summary.find((s) => s.name === 'fastify peer, full')?.rps ?? Number.NaN;
  console.log('\nmedians (closed loop, wrk)');
  console.log(
    'contender            envelopes/s  upstream/s   × nginx  × naive  × peer(full)   p50 ms   p99 ms  CPU µs/env  peak RSS MB  non-2xx+socket errors (wrk)',
  );
  for (const s of summary) {
    console.log(
      `${s.name.padEnd(20)} ${s.rps.toFixed(0).padStart(11)} ${s.upstream.toFixed(0).padStart(11)} ${(s.rps / base).toFixed(2).padStart(8)} ${(s.rps / naiveRps).toFixed(2).padStart(7)} ${(s.rps / peerRps).toFixed(2).padStart(12)} ${s.p50.toFixed(2).padStart(8)} ${s.p99.toFixed(2).padStart(8)} ${s.cpuUs.toFixed(0).padStart(11)} ${s.peakRssMb.toFixed(0).padStart(12)} ${String(s.failed).padStart(7)}`,
    );
  }
  printPeerRatios(results);
  printBaselineRatios(results);
  printProjectsFileRatio(results);

  if (only) return; // an A/B of some contenders: the sections below need them all
  // Latency at the naive tunnel's throughput, open loop.
  const rate = Math.max(100, Math.round(naiveRps));
  console.log(`\nlatency at the naive tunnel's throughput (${rate}/s, open loop, ${seconds} s)`);
  // The generator straight to the sink, and nginx: the floor the generator and sink can measure on this machine.
  const direct = { name: 'none (to the sink)', url: `http://127.0.0.1:${sinkPort}/api/1/envelope/`, pid: 0 };
  for (const c of [direct, ...contenders] as Array<(typeof contenders)[number]>) {
    const output = execFileSync(
      bin.taskset,
      ['-c', '1', node, join(here, 'fixed-rate.ts'), c.url, c.body ?? bodyFile, String(rate), String(seconds)],
      {
        encoding: 'utf8',
      },
    );
    const r = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as Record<string, number>;
    console.log(
      `  ${c.name.padEnd(20)} p50 ${r.p50?.toFixed(2)} ms  p99 ${r.p99?.toFixed(2)} ms  max ${r.max?.toFixed(1)} ms  achieved ${r.achieved?.toFixed(0)}/s  errors ${r.errors} non-2xx ${r.non2xx}`,
    );
  }

  // 10 MiB envelopes with 100 attachments, one after another: the longest the event loop was blocked meanwhile,
  // from bench/loop-probe.ts (1 ms timer) preloaded into each relay.
  const large = largeEnvelope(dsn);
  console.log(
    `\nevent-loop blocking while ${(large.length / 1048576).toFixed(1)} MiB envelopes (100 attachments) pass`,
  );
  for (const [name, port, mode] of [
    ['relay (fast)', fastPort, 'fast'],
    ['relay (durable)', durablePort, 'durable'],
  ] as const) {
    const from = Date.now();
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const response = await fetch(`http://127.0.0.1:${port}/monitoring`, { method: 'POST', body: large });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000)); // forwarding finishes
    const blocks = readFileSync(probeFile(mode), { encoding: 'utf8', flag: 'a+' })
      .split('\n')
      .map((line) => line.split(' ').map(Number))
      .filter(([at, ms]) => at !== undefined && at >= from && ms !== undefined)
      .map(([, ms]) => ms as number);
    console.log(
      `  ${name.padEnd(16)} longest block ${Math.max(0, ...blocks).toFixed(1)} ms, ${blocks.length} blocks over 5 ms, over 10 envelopes (statuses ${[...new Set(statuses)].join(',')})`,
    );
  }

  if (soakSeconds > 0) {
    console.log(`\nRSS of the relay (fast) over ${soakSeconds} s of full load (MB, every 10 s)`);
    const samples: number[] = [];
    const fastPid = fast.pid as number;
    const timer = setInterval(() => samples.push(status(fastPid, 'VmRSS')), 10_000);
    await new Promise<void>((resolve, reject) => {
      const load = spawn(bin.taskset, wrkArgs(bin, `http://127.0.0.1:${fastPort}/monitoring`, bodyFile, soakSeconds), {
        stdio: 'ignore',
      });
      load.on('exit', () => resolve());
      load.on('error', reject);
    });
    clearInterval(timer);
    console.log(`  ${samples.map((s) => s.toFixed(0)).join(' ')}  (peak ${status(fastPid, 'VmHWM').toFixed(0)})`);
  }
}

/** With BENCH_BASELINE: each relay against the baseline's same mode, round by round (median of the rounds). */
function printBaselineRatios(results: ReadonlyMap<string, readonly WrkResult[]>): void {
  const modes = (['fast', 'durable'] as const).filter((mode) => results.has(`baseline (${mode})`));
  if (modes.length === 0) return;
  console.log('\nthis checkout against the baseline, round by round (median of the rounds)');
  for (const mode of modes) {
    const ours = results.get(`relay (${mode})`) ?? [];
    const theirs = results.get(`baseline (${mode})`) ?? [];
    const ratio = (pick: (r: WrkResult) => number) =>
      median(ours.map((r, i) => pick(r) / pick(theirs[i] ?? ({} as WrkResult)))).toFixed(3);
    console.log(
      `  relay (${mode}) × baseline (${mode}): envelopes/s ${ratio((r) => r.rps)}, p99 ${ratio((r) => r.p99)}, CPU/env ${ratio((r) => r.cpuUs)} (user ${ratio((r) => r.userUs)})`,
    );
  }
}

/** The projects file's row against the one-project row, round by round (issue 40's bar: within 5 %). */
function printProjectsFileRatio(results: ReadonlyMap<string, readonly WrkResult[]>): void {
  const file = results.get('relay (fast, projects file)');
  const one = results.get('relay (fast)');
  if (!file?.length || !one?.length) return;
  const ratios = file.map((r, i) => r.rps / (one[i]?.rps ?? Number.NaN));
  const middle = median(ratios);
  console.log(
    `\nprojects file (200 projects) × one project, envelopes/s: ${middle.toFixed(3)} (rounds ${ratios.map((r) => r.toFixed(3)).join(', ')}): ${middle >= 0.95 ? 'within' : 'NOT within'} 5 %`,
  );
}

try {
  await main();
} finally {
  for (const child of children) child.kill('SIGTERM');
}
