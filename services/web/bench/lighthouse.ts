// `npm run bench:lighthouse -w @app/web`: Lighthouse (mobile preset: simulated slow 4G, 4x CPU slowdown) against the
// production build with Sentry on, every page of the example product, medians of three runs each; in the same runs,
// the React Router framework peer's equivalent page (our catalog list at /catalog?limit=50 beside our /catalog; see
// peer-ssr-rr.ts). Next.js is not among the peers in /work/shared/peers, so it is not run here. Debian's Chromium,
// started here with a DevTools port for Lighthouse. A benchmark, not a test: scores move a few points between runs.
// LIGHTHOUSE_RUNS, LIGHTHOUSE_PEERS=off and COMPRESSION=off (the service's own variable) change what is measured;
// LIGHTHOUSE_BASELINE (the services/web folder of another checkout, built, e.g. a `git worktree` of main) audits its
// pages too, in turn with ours in every run, so a change is measured against what it replaces under the same load.
// LIGHTHOUSE_JSON (a folder) keeps every run's whole report there, to read what the simulation made of the page;
// LIGHTHOUSE_TASKS=1 prints each long task of the trace Lighthouse observed (×4, as its simulation) and its causes.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, startCaptureServer } from '@app/test-kit';
import { analyseTrace, describeTask, type TraceEvent } from '@app/test-kit/main-thread-trace';
import lighthouse from 'lighthouse';
import { PAGES, startWebBuild } from './lighthouse-targets.ts';
import { type Peer, prepareSsrRrPeer, startSsrRrPeer } from './peer-ssr-rr.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3);
const BASELINE = process.env.LIGHTHOUSE_BASELINE;
const JSON_DIR = process.env.LIGHTHOUSE_JSON;
const TASKS = process.env.LIGHTHOUSE_TASKS === '1';
/** The peer's page that matches one of ours. */
const PEER_PAGES = { '/catalog?limit=50': '/catalog' } as const;
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
const METRICS = {
  FCP: 'first-contentful-paint',
  LCP: 'largest-contentful-paint',
  TBT: 'total-blocking-time',
  CLS: 'cumulative-layout-shift',
} as const;

/** Chromium with a DevTools port on loopback; resolves with the port once it says where it listens. */
async function startChromium(): Promise<{ port: number; child: ChildProcess; profile: string }> {
  const profile = mkdtempSync(join(tmpdir(), 'lighthouse-chromium-'));
  const child = spawn(
    process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-component-update',
      '--remote-debugging-address=127.0.0.1',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let seen = '';
  for await (const chunk of child.stderr) {
    seen += String(chunk);
    const port = /DevTools listening on ws:\/\/127\.0\.0\.1:(\d+)\//.exec(seen)?.[1];
    if (port) {
      child.stderr.resume();
      return { port: Number(port), child, profile };
    }
  }
  throw new Error(`chromium exited before opening its DevTools port:\n${seen}`);
}

type Row = Record<string, number>;

async function audit(url: string, port: number, saveAs: string, attempt = 1): Promise<Row> {
  const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: [...CATEGORIES] });
  if (!result) throw new Error(`lighthouse returned nothing for ${url}`);
  const { categories, audits, runtimeError } = result.lhr;
  // On a loaded machine the trace sometimes misses its start (NO_NAVSTART): Lighthouse says to run it again.
  if (runtimeError && attempt < 3) return audit(url, port, saveAs, attempt + 1);
  if (runtimeError) throw new Error(`lighthouse ${url}: ${runtimeError.code} ${runtimeError.message}`);
  if (JSON_DIR) writeFileSync(join(JSON_DIR, `${saveAs.replace(/[^\w.-]+/g, '_')}.json`), String(result.report));
  if (TASKS) {
    // Lighthouse's own (unthrottled) trace read as its simulation reads it: every task ×4, what each one's time went to.
    const events = result.artifacts.Trace.traceEvents as unknown as TraceEvent[];
    const report = analyseTrace(events, new URL(url).origin, { clock: 'wall', factor: 4 });
    for (const task of report?.longTasks ?? []) console.log(`    ${saveAs}: ${describeTask(task)}`);
  }
  const row: Row = {};
  for (const id of CATEGORIES) row[id] = Math.round((categories[id]?.score ?? Number.NaN) * 100);
  // What cost points outside Performance (where every point is one audit), so a run says what to fix.
  const failed = CATEGORIES.filter((id) => id !== 'performance')
    .flatMap((id) => categories[id]?.auditRefs ?? [])
    .filter((ref) => ref.weight > 0 && (audits[ref.id]?.score ?? 1) < 1)
    .map((ref) => ref.id);
  if (failed.length > 0) console.log(`  ${url}: failed ${failed.join(', ')}`);
  for (const [name, id] of Object.entries(METRICS)) row[name] = audits[id]?.numericValue ?? Number.NaN;
  return row;
}

const format = (name: string, value: number) =>
  name === 'CLS' ? value.toFixed(3) : name in METRICS ? `${(value / 1000).toFixed(2)} s` : String(value);

async function main(): Promise<void> {
  execFileSync(process.execPath, ['src/build-if-stale.ts'], { cwd: root, stdio: 'inherit' });
  const capture = await startCaptureServer();
  const web = await startWebBuild(root, capture);
  const baseline = BASELINE ? await startWebBuild(BASELINE, capture) : undefined;
  const peerDir = process.env.LIGHTHOUSE_PEERS === 'off' ? undefined : prepareSsrRrPeer();
  let peer: Peer | undefined;
  const chromium = await startChromium();
  if (JSON_DIR) mkdirSync(JSON_DIR, { recursive: true });
  // Label → URL, ours (each page beside the baseline's) then the peer's, audited in turn in every run so all see the
  // same machine load.
  const targets = new Map(
    PAGES.flatMap((path) => [
      [`ours ${path}`, `${web.url}${path}`],
      ...(baseline ? [[`baseline ${path}`, `${baseline.url}${path}`]] : []),
    ]) as Array<[string, string]>,
  );
  const rows = new Map<string, Row[]>();
  try {
    if (peerDir) {
      peer = await startSsrRrPeer(peerDir);
      for (const [path, ours] of Object.entries(PEER_PAGES))
        targets.set(`ssr-rr ${path} (≈ ${ours})`, `${peer.url}${path}`);
    } else console.log('the ssr-rr peer is not run (LIGHTHOUSE_PEERS=off or /work/shared/peers/ssr-rr absent)');
    for (let run = 1; run <= RUNS; run++) {
      for (const [label, url] of targets) {
        const row = await audit(url, chromium.port, `run${run} ${label}`);
        rows.set(label, [...(rows.get(label) ?? []), row]);
        console.log(
          `run ${run} ${label.padEnd(32)} ${Object.entries(row)
            .map(([k, v]) => `${k} ${format(k, v)}`)
            .join('  ')}`,
        );
      }
    }
  } finally {
    chromium.child.kill('SIGKILL');
    await once(chromium.child, 'exit');
    rmSync(chromium.profile, { recursive: true, force: true });
    await peer?.stop();
    await web.kill();
    await baseline?.kill();
    await capture.close();
  }
  const columns = ['Perf', 'A11y', 'BP', 'SEO', ...Object.keys(METRICS)];
  console.log(
    `\nmedians of ${RUNS} runs, mobile preset; ours with Sentry on, COMPRESSION=${process.env.COMPRESSION ?? 'on'};` +
      ' ssr-rr = React Router framework + react-router-serve, no Sentry. Next.js: not in /work/shared/peers, not run.' +
      (BASELINE ? ` baseline = ${BASELINE}.` : ''),
  );
  console.log(`| page | ${columns.join(' | ')} |\n|---|${columns.map(() => '---:').join('|')}|`);
  for (const [label, runs] of rows) {
    const keys = [...CATEGORIES, ...Object.keys(METRICS)];
    const cells = keys.map((key) => format(key, median(runs.map((r) => r[key] ?? Number.NaN))));
    console.log(`| ${label} | ${cells.join(' | ')} |`);
  }
}

await main();
