// `npm run bench -w @app/web`: SSR and page-data throughput of the service against bare React servers rendering the
// same tree, in one run, interleaved rounds, the server under test pinned to core 0 and wrk to core 1. Then the
// first-load JavaScript size and, from Chromium, hydration time with and without Sentry. Ratios are the result:
// absolute numbers on a shared 2-core machine are noise, ratios measured side by side are not.
//
// Env: BENCH_ROUNDS (3), BENCH_SECONDS (5), BENCH_BASELINE (the services/web folder of another checkout, built, e.g.
// a `git worktree` of main: its server runs beside this one in the same rounds, so a change is measured against what
// it replaces on the same machine at the same time), BENCH_THROUGHPUT_ONLY=1 (skip the bundle and Chromium parts).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { get } from 'node:http';
import { join } from 'node:path';
import { startCaptureServer } from '@app/test-kit';
import { measureBrowser } from './browser.ts';
import { measureFirstLoad } from './bundle-size.ts';
import { measureCompressionCost } from './compression-cost.ts';

const root = new URL('..', import.meta.url).pathname;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;
const SAMPLE_RATE = '0.1';
const PAGE = '/catalog?limit=50';
const BASELINE = process.env.BENCH_BASELINE;

interface Target {
  name: string;
  url: string;
  headers?: Record<string, string>;
}

function build(): void {
  execFileSync(process.execPath, ['scripts/build-if-stale.ts'], { cwd: root, stdio: 'inherit' });
  execFileSync(
    process.execPath,
    [
      join(root, '../../node_modules/vite/bin/vite.js'),
      'build',
      '--ssr',
      '--outDir',
      'dist/bench',
      '--logLevel',
      'error',
    ],
    {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, NODE_ENV: 'production', WEB_SSR_ENTRY: 'bench/bare-server.tsx' },
    },
  );
}

async function startPinned(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  cwd = root,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn('taskset', ['-c', '0', process.execPath, ...args], {
    cwd,
    env: { ...process.env, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')} did not start`));
    }, 20_000);
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const port = /(?:127\.0\.0\.1:|"port":)(\d+)/.exec(seen)?.[1];
      if (ready.test(seen) && port) {
        clearTimeout(timer);
        // Keep draining the logs (one line per request at info, as deployed) without keeping them.
        child.stdout.off('data', onData);
        child.stderr.off('data', onData);
        child.stdout.resume();
        child.stderr.resume();
        resolve({ child, port: Number(port) });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${seen}`)));
  });
}

/** Runs wrk without blocking this process, which meanwhile drains the servers' logs and runs the capture server. */
async function wrk(target: Target): Promise<{ rps: number; p99Ms: number }> {
  const headers = Object.entries(target.headers ?? {}).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
  const child = spawn(
    'taskset',
    ['-c', '1', 'wrk', '-t1', `-c${CONNECTIONS}`, `-d${SECONDS}s`, '--latency', ...headers, target.url],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`wrk exited ${code} for ${target.name}`);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out);
  const factor = { us: 0.001, ms: 1, s: 1000 }[(p99?.[2] ?? 'ms') as 'us' | 'ms' | 's'];
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (non2xx) throw new Error(`${target.name}: ${non2xx[1]} failed responses`);
  return { rps, p99Ms: Number(p99?.[1]) * factor };
}

/** The document's body in the chunks the server wrote (over loopback, one per socket write). */
async function chunksOf(url: string): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    get(url, (res) => {
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', resolve);
      res.on('error', reject);
    }).on('error', reject);
  });
  return chunks;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function main(): Promise<void> {
  build();
  const capture = await startCaptureServer();
  const startWeb = (env: Record<string, string> = {}, cwd?: string) =>
    startPinned(
      ['--import', './dist/server/instrument.js', './dist/server/main.js'],
      // Load shedding samples as deployed but never sheds: wrk saturates the server on purpose.
      { SENTRY_DSN: capture.dsn(), SENTRY_TRACES_SAMPLE_RATE: SAMPLE_RATE, SHED_EVENT_LOOP_DELAY_MS: '60000', ...env },
      /Server listening/,
      cwd,
    );
  const web = await startWeb();
  // The same service with on-the-fly compression off (as behind an edge that compresses): the A/B of its CPU cost.
  const uncompressed = await startWeb({ COMPRESSION: 'off' });
  const baseline = BASELINE ? await startWeb({}, BASELINE) : undefined;
  const bareStream = await startPinned(['dist/bench/bare.js'], { RENDER: 'stream' }, /listening/);
  const bareString = await startPinned(['dist/bench/bare.js'], { RENDER: 'string' }, /listening/);
  const dataHeaders = { 'X-Page-Data': '1', 'X-Page-Data-Routes': 'root,catalog-list' };
  const targets: Target[] = [
    { name: 'web SSR (document)', url: `http://127.0.0.1:${web.port}${PAGE}` },
    { name: 'web page data', url: `http://127.0.0.1:${web.port}${PAGE}`, headers: dataHeaders },
    // wrk sends no Accept-Encoding: the two above are uncompressed, these pay for on-the-fly compression.
    { name: 'web SSR br', url: `http://127.0.0.1:${web.port}${PAGE}`, headers: { 'Accept-Encoding': 'br' } },
    { name: 'web SSR gzip', url: `http://127.0.0.1:${web.port}${PAGE}`, headers: { 'Accept-Encoding': 'gzip' } },
    {
      name: 'web SSR br, COMPRESSION=off',
      url: `http://127.0.0.1:${uncompressed.port}${PAGE}`,
      headers: { 'Accept-Encoding': 'br' },
    },
    {
      name: 'web page data br',
      url: `http://127.0.0.1:${web.port}${PAGE}`,
      headers: { ...dataHeaders, 'Accept-Encoding': 'br' },
    },
    { name: 'bare renderToPipeableStream', url: `http://127.0.0.1:${bareStream.port}/` },
    { name: 'bare renderToString', url: `http://127.0.0.1:${bareString.port}/` },
    ...(baseline
      ? [
          { name: 'baseline SSR (document)', url: `http://127.0.0.1:${baseline.port}${PAGE}` },
          { name: 'baseline page data', url: `http://127.0.0.1:${baseline.port}${PAGE}`, headers: dataHeaders },
        ]
      : []),
  ];
  const results = new Map<string, Array<{ rps: number; p99Ms: number }>>();
  let documentChunks: Buffer[] = [];
  try {
    documentChunks = await chunksOf(`http://127.0.0.1:${uncompressed.port}${PAGE}`);
    for (const target of targets) await wrk(target); // warm-up (JIT), not recorded
    for (let round = 1; round <= ROUNDS; round++) {
      for (const target of targets) {
        const result = await wrk(target);
        results.set(target.name, [...(results.get(target.name) ?? []), result]);
        console.log(
          `round ${round} ${target.name.padEnd(30)} ${result.rps.toFixed(0).padStart(6)} req/s  p99 ${result.p99Ms.toFixed(1)} ms`,
        );
      }
    }
  } finally {
    for (const server of [web, uncompressed, bareStream, bareString, ...(baseline ? [baseline] : [])]) {
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
    }
    await capture.close();
  }
  const summary = Object.fromEntries(
    [...results].map(([name, runs]) => [
      name,
      { rps: median(runs.map((r) => r.rps)), p99Ms: median(runs.map((r) => r.p99Ms)) },
    ]),
  );
  const get = (name: string) => summary[name] ?? { rps: Number.NaN, p99Ms: Number.NaN };
  console.log(
    `\nmedians of ${ROUNDS} interleaved rounds, ${SECONDS} s each, ${CONNECTIONS} connections, ${PAGE} (50 items)`,
  );
  console.log(`Sentry enabled in the service as deployed: errors on, tracesSampleRate ${SAMPLE_RATE}`);
  for (const [name, s] of Object.entries(summary)) {
    console.log(`  ${name.padEnd(30)} ${s.rps.toFixed(0).padStart(6)} req/s  p99 ${s.p99Ms.toFixed(1)} ms`);
  }
  const ssr = get('web SSR (document)').rps;
  console.log(`  SSR / bare stream      ${(ssr / get('bare renderToPipeableStream').rps).toFixed(2)}  (target ≥ 0.70)`);
  console.log(`  SSR / bare string      ${(ssr / get('bare renderToString').rps).toFixed(2)}`);
  console.log(`  page data / SSR        ${(get('web page data').rps / ssr).toFixed(2)}  (target ≥ 3)`);
  if (baseline) {
    // Per round, then the median of those ratios: each round's pair ran minutes apart at most.
    const ratio = (name: string, base: string) => {
      const ours = results.get(name) ?? [];
      const theirs = results.get(base) ?? [];
      return ours.map((r, i) => r.rps / (theirs[i]?.rps ?? Number.NaN));
    };
    for (const [name, base] of [
      ['web SSR (document)', 'baseline SSR (document)'],
      ['web page data', 'baseline page data'],
    ] as const) {
      const ratios = ratio(name, base);
      console.log(
        `  ${name} / baseline  ${median(ratios).toFixed(3)} (rounds ${ratios.map((r) => r.toFixed(3)).join(', ')})`,
      );
    }
  }
  // The server is pinned to one saturated core: its CPU time per request is 1 / throughput.
  const extraMs = (compressed: string, raw: string) =>
    (1000 / get(compressed).rps - 1000 / get(raw).rps).toFixed(3).padStart(7);
  console.log(`  CPU per request added by compression (ms, one core):`);
  console.log(`    document brotli q4, COMPRESSION on vs off ${extraMs('web SSR br', 'web SSR br, COMPRESSION=off')}`);
  console.log(`    document brotli q4   ${extraMs('web SSR br', 'web SSR (document)')}`);
  console.log(`    document gzip 6      ${extraMs('web SSR gzip', 'web SSR (document)')}`);
  console.log(`    page data brotli q4  ${extraMs('web page data br', 'web page data')}`);
  if (process.env.BENCH_THROUGHPUT_ONLY === '1') return;

  const cost = await measureCompressionCost(documentChunks);
  console.log(
    `\ncompressing the ${PAGE} document (${cost.rawBytes} bytes, ${documentChunks.length} chunks as received), CPU per document:`,
  );
  for (const row of cost.rows) {
    console.log(`  ${row.name.padEnd(40)} ${row.cpuMsPerDoc.toFixed(3)} ms  → ${row.bytes} bytes`);
  }

  const size = measureFirstLoad();
  console.log(`\nfirst-load JavaScript ${size.page}: ${size.totalGzipKb.toFixed(1)} KB gzip (target ≤ 120)`);
  console.log(`  of which Sentry Debug ID snippets ${size.debugIdGzipKb.toFixed(2)} KB`);
  for (const [pkg, kb] of Object.entries(size.byPackage).sort((a, b) => b[1] - a[1])) {
    console.log(`  ${pkg.padEnd(20)} ${kb.toFixed(1)} KB`);
  }
  for (const f of size.deferred) console.log(`  loaded later: ${f.file} ${f.gzipKb.toFixed(1)} KB`);

  const browser = await measureBrowser();
  console.log('\nChromium (medians of 5 loads of /catalog, cache warm):');
  for (const [name, value] of Object.entries(browser)) console.log(`  ${name.padEnd(44)} ${value}`);
}

await main();
