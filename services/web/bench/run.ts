// `npm run bench -w @app/web`: SSR and page-data throughput of the service against bare React servers rendering the
// same tree, in one run, interleaved rounds, the server under test pinned to core 0 and wrk to core 1. Then the
// first-load JavaScript size and, from Chromium, hydration time with and without Sentry. Ratios are the result:
// absolute numbers on a shared 2-core machine are noise, ratios measured side by side are not.
//
// The React Router framework peer (ssr-rr: `react-router-serve`, its 50-item list at /items, no Sentry) runs pinned
// beside them, prepared as the Lighthouse bench does (peer-ssr-rr.ts); BENCH_PEERS=off leaves it out. It runs as its
// docs run it in production (its request log to /dev/null); issue 26's rows (sentry-fairness.ts) add it as the old
// harness ran it, the same peer with @sentry/react-router, and a bare render doing the same work per request.
//
// Env: BENCH_ROUNDS (3), BENCH_SECONDS (5), BENCH_BASELINE (the services/web folder of another checkout, built, e.g.
// a `git worktree` of main: its server runs beside this one in the same rounds, so a change is measured against what
// it replaces on the same machine at the same time, then in paired rounds at once), BENCH_THROUGHPUT_ONLY=1 (skip
// the bundle and Chromium parts), BENCH_ONLY (a regular expression: only the targets whose names match, e.g. `SSR \\(|bare|ssr-rr`).
// The service also runs without the Node SDK ("web SSR, Sentry off"): the part of the gap to the bare render that is not
// Sentry's.
// BENCH_WARMUP_SECONDS (BENCH_SECONDS): load on each target before the rounds; at tracing rate 0.1 the span path tiers
// up in V8 only after ≈ 100 000 documents, so a long warm-up measures a pod that has been running (docs/benchmarks.md).
// BENCH_REWARM_SECONDS (0): unrecorded load on a target right before each of its rounds (decision 032).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { get } from 'node:http';
import { join } from 'node:path';
import { median, startCaptureServer } from '@app/test-kit';
import { measureBrowser } from './browser.ts';
import { measureFirstLoad } from './bundle-size.ts';
import { measureCompressionCost } from './compression-cost.ts';
import { type Peer, prepareSsrRrPeer, startSsrRrPeer } from './peer-ssr-rr.ts';
import { checkPeerSent, reportFairness, runAtOnce, startFairnessRows } from './sentry-fairness.ts';
import { CONNECTIONS, line, type Result, SECONDS, type Target, wrk } from './wrk.ts';

const root = new URL('..', import.meta.url).pathname;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? SECONDS);
// Unrecorded load on a target right before each of its rounds: idle for the other targets' rounds (≈ 30 s),
// react-router-serve then costs ≈ 1.6 × per document for ≈ 30 s of load, ours ≈ 1.05 × (decision 032). 2 s did not
// undo it, 30 s did by the third round; 0 (the default) keeps the rounds as before.
const REWARM_SECONDS = Number(process.env.BENCH_REWARM_SECONDS ?? 0);
const SAMPLE_RATE = '0.1';
const PAGE = '/catalog?limit=50';
const BASELINE = process.env.BENCH_BASELINE;
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
const PEER_PAGE = '/items';
const PEER = 'ssr-rr (React Router framework)';
const FAIR_NAMES = { ours: 'web SSR (document)', oursOff: 'web SSR, Sentry off', peer: PEER };
const BASELINE_PAIRS = [
  ['web SSR (document)', 'baseline SSR (document)'],
  ['web page data', 'baseline page data'],
] as const;

function build(): void {
  execFileSync(process.execPath, ['src/build-if-stale.ts'], { cwd: root, stdio: 'inherit' });
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
    }, 60_000); // a loaded machine starts Sentry slowly
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

async function main(): Promise<void> {
  build();
  const peerDir = process.env.BENCH_PEERS === 'off' ? undefined : prepareSsrRrPeer();
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
  // The same service without the Node SDK (no --import, no DSN): how much of the gap to the bare render is Sentry's.
  const sentryOff = await startPinned(
    ['./dist/server/main.js'],
    { SHED_EVENT_LOOP_DELAY_MS: '60000' },
    /Server listening/,
  );
  const bareStream = await startPinned(['dist/bench/bare.js'], { RENDER: 'stream' }, /listening/);
  const bareString = await startPinned(['dist/bench/bare.js'], { RENDER: 'string' }, /listening/);
  const peer: Peer | undefined = peerDir ? await startSsrRrPeer(peerDir, ['-c', '0']) : undefined;
  const startBare = (env: Record<string, string>) => startPinned(['dist/bench/bare.js'], env, /listening/);
  const fairness = await startFairnessRows(startBare, peerDir, capture, PAGE, PEER_PAGE);
  const dataHeaders = { 'X-Page-Data': '1', 'X-Page-Data-Routes': 'root,catalog' };
  const servedBy = (server: { child: ChildProcess; port: number }, path = PAGE) => ({
    url: `http://127.0.0.1:${server.port}${path}`,
    pid: server.child.pid,
  });
  const allTargets: Target[] = [
    { name: 'web SSR (document)', ...servedBy(web) },
    { name: 'web page data', ...servedBy(web), headers: dataHeaders },
    { name: 'web SSR, Sentry off', ...servedBy(sentryOff) },
    // wrk sends no Accept-Encoding: the two above are uncompressed, these pay for on-the-fly compression.
    { name: 'web SSR br', ...servedBy(web), headers: { 'Accept-Encoding': 'br' } },
    { name: 'web SSR gzip', ...servedBy(web), headers: { 'Accept-Encoding': 'gzip' } },
    {
      name: 'web SSR br, COMPRESSION=off',
      ...servedBy(uncompressed),
      headers: { 'Accept-Encoding': 'br' },
    },
    {
      name: 'web page data br',
      ...servedBy(web),
      headers: { ...dataHeaders, 'Accept-Encoding': 'br' },
    },
    { name: 'bare renderToPipeableStream', ...servedBy(bareStream, '/') },
    { name: 'bare renderToString', ...servedBy(bareString, '/') },
    // The peer compresses with brotli q4 too (Express's compression middleware) when the client asks, as browsers do.
    ...(peer
      ? [
          { name: PEER, url: `${peer.url}${PEER_PAGE}`, pid: peer.pid },
          { name: `${PEER} br`, url: `${peer.url}${PEER_PAGE}`, pid: peer.pid, headers: { 'Accept-Encoding': 'br' } },
        ]
      : []),
    ...fairness.targets,
    ...(baseline
      ? [
          { name: 'baseline SSR (document)', ...servedBy(baseline) },
          { name: 'baseline page data', ...servedBy(baseline), headers: dataHeaders },
        ]
      : []),
  ];
  const targets = allTargets.filter((target) => !ONLY || ONLY.test(target.name));
  const results = new Map<string, Result[]>();
  const paired = new Map<string, number[]>();
  let documentChunks: Buffer[] = [];
  let sentByPeer = { envelopes: 0, transactions: 0 };
  try {
    documentChunks = await chunksOf(`http://127.0.0.1:${uncompressed.port}${PAGE}`);
    for (const target of targets) await wrk(target, WARMUP_SECONDS); // warm-up (JIT), not recorded
    for (let round = 1; round <= ROUNDS; round++) {
      for (const target of targets) {
        if (REWARM_SECONDS > 0) await wrk(target, REWARM_SECONDS);
        const result = await wrk(target);
        results.set(target.name, [...(results.get(target.name) ?? []), result]);
        console.log(`round ${round} ${target.name.padEnd(30)} ${line(result)}`);
      }
    }
    // With a baseline, ours and its counterpart also run at the same time (two wrk on core 1, both servers sharing
    // core 0), so both meet the same neighbours: the steadier A/B on a loaded machine.
    for (const [name, base] of BASELINE_PAIRS) {
      const ours = targets.find((t) => t.name === name);
      const theirs = targets.find((t) => t.name === base);
      if (!ours || !theirs) continue;
      for (let round = 1; round <= ROUNDS; round++) {
        const [a, b] = await Promise.all([wrk(ours), wrk(theirs)]);
        paired.set(name, [...(paired.get(name) ?? []), b.cpuMs / a.cpuMs]);
        console.log(`paired round ${round} ${name}: ours ${line(a)} | baseline ${line(b)}`);
      }
    }
    await runAtOnce(targets, FAIR_NAMES, ROUNDS, REWARM_SECONDS);
  } finally {
    for (const server of [web, uncompressed, sentryOff, bareStream, bareString, ...(baseline ? [baseline] : [])]) {
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
    }
    await peer?.stop();
    sentByPeer = fairness.sent();
    await fairness.stop();
    await capture.close();
  }
  const summary = Object.fromEntries(
    [...results].map(([name, runs]) => [
      name,
      {
        rps: median(runs.map((r) => r.rps)),
        p99Ms: median(runs.map((r) => r.p99Ms)),
        cpuMs: median(runs.map((r) => r.cpuMs)),
        mainMs: median(runs.map((r) => r.mainMs)),
        requests: median(runs.map((r) => r.requests)),
      },
    ]),
  );
  const get = (name: string) =>
    summary[name] ?? { rps: Number.NaN, p99Ms: Number.NaN, cpuMs: Number.NaN, mainMs: Number.NaN, requests: 0 };
  console.log(
    `\nmedians of ${ROUNDS} interleaved rounds, ${SECONDS} s each, ${CONNECTIONS} connections, ${PAGE} (50 items)`,
  );
  console.log(`Sentry enabled in the service as deployed: errors on, tracesSampleRate ${SAMPLE_RATE}`);
  for (const [name, s] of Object.entries(summary)) {
    console.log(`  ${name.padEnd(30)} ${line(s)}`);
  }
  // Per round, then the median of those ratios: the two of a pair ran seconds apart, under the same load. Two of
  // them: throughput, and requests per CPU-second of the server (its CPU time per request, inverted), which is what
  // throughput on a core of its own would be and what a loaded machine disturbs least.
  const ratioLine = (label: string, name: string, base: string, target = '') => {
    const ours = results.get(name) ?? [];
    const theirs = results.get(base) ?? [];
    if (ours.length === 0 || theirs.length === 0) return;
    const of = (ratio: (a: Result, b: Result) => number) => {
      const ratios = ours.map((r, i) => (theirs[i] ? ratio(r, theirs[i]) : Number.NaN));
      return `${median(ratios).toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(', ')})`;
    };
    const throughput = of((a, b) => a.rps / b.rps);
    const perCpu = of((a, b) => b.cpuMs / a.cpuMs);
    console.log(`  ${label.padEnd(26)} req/s ${throughput}  per CPU-s ${perCpu}${target}`);
  };
  ratioLine('SSR / ssr-rr', 'web SSR (document)', PEER, '  target ≥ 1.5');
  ratioLine('SSR br / ssr-rr br', 'web SSR br', `${PEER} br`, '  (as browsers ask)');
  ratioLine('SSR / bare stream', 'web SSR (document)', 'bare renderToPipeableStream', '  (issue 12, replaced)');
  ratioLine('SSR / bare string', 'web SSR (document)', 'bare renderToString');
  ratioLine(
    'Sentry off / bare stream',
    'web SSR, Sentry off',
    'bare renderToPipeableStream',
    '  (the gap without Sentry)',
  );
  ratioLine('page data / SSR', 'web page data', 'web SSR (document)', '  target ≥ 3');
  reportFairness(results, ratioLine, FAIR_NAMES);
  checkPeerSent(results, sentByPeer);
  if (baseline) {
    ratioLine('SSR / baseline SSR', 'web SSR (document)', 'baseline SSR (document)');
    ratioLine('page data / baseline', 'web page data', 'baseline page data');
    ratioLine('baseline SSR / ssr-rr', 'baseline SSR (document)', PEER);
    ratioLine('baseline SSR / bare stream', 'baseline SSR (document)', 'bare renderToPipeableStream');
    for (const [name, ratios] of paired) {
      const rounds = ratios.map((r) => r.toFixed(2)).join(', ');
      console.log(`  ${name} / baseline, run at once: per CPU-s ${median(ratios).toFixed(2)} (${rounds})`);
    }
  }
  // Each server's own CPU time per request (not 1 / throughput, which a loaded machine moves).
  const extraMs = (compressed: string, raw: string) => (get(compressed).cpuMs - get(raw).cpuMs).toFixed(3).padStart(7);
  const compressionRows = [
    ['document brotli q4, COMPRESSION on vs off', 'web SSR br', 'web SSR br, COMPRESSION=off'],
    ['document brotli q4', 'web SSR br', 'web SSR (document)'],
    ['document gzip 6', 'web SSR gzip', 'web SSR (document)'],
    ['page data brotli q4', 'web page data br', 'web page data'],
  ].filter(([, a = '', b = '']) => results.has(a) && results.has(b));
  if (compressionRows.length > 0) console.log('  CPU per request added by compression (ms):');
  for (const [label = '', a = '', b = ''] of compressionRows) console.log(`    ${label.padEnd(42)} ${extraMs(a, b)}`);
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
