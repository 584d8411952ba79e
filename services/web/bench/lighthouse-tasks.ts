// `npm run bench:tasks -w @app/web`: what Lighthouse's Total Blocking Time is made of, measured so that other
// processes' load does not move it. Each page is loaded in Chromium with a performance trace; every main-thread task's
// CPU time (the trace's thread time, not its wall time) is scaled by 4 as Lighthouse's mobile simulation scales what
// it observed, and the tasks after first contentful paint add their part beyond 50 ms: "TBT (CPU ×4)". Medians of
// TASKS_RUNS (5) loads per page; with LIGHTHOUSE_BASELINE (another checkout's services/web, built) its pages are loaded
// in turn with ours. TASKS_DETAIL=1 prints each long task: what the trace says ran in it and its hottest functions
// (sampled by the V8 profiler, named through the build's hidden source maps). A benchmark, not a test.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, startCaptureServer } from '@app/test-kit';
import { launchChromium } from '@app/test-kit/chromium';
import { TRACE_CATEGORIES } from '@app/test-kit/main-thread';
import type { TraceEvent } from '@app/test-kit/main-thread-trace';
import type { Browser } from 'playwright-core';
import { SourceMapConsumer } from 'source-map-js';
import { PAGES, startWebBuild } from './lighthouse-targets.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.TASKS_RUNS ?? 5);
const DETAIL = process.env.TASKS_DETAIL === '1';
/** Lighthouse's mobile preset: 4× CPU slowdown; a task is long past 50 ms. */
const CPU_SLOWDOWN = 4;
const LONG_TASK_MS = 50;

interface Profile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  }>;
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}
interface Load {
  tbt: number;
  longTasks: number;
  longest: number;
  detail: string[];
}

async function traceLoad(browser: Browser, url: string): Promise<{ events: TraceEvent[]; profile?: Profile }> {
  const context = await browser.newContext({ viewport: { width: 412, height: 823 }, isMobile: true });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (event) => events.push(...(event.value as unknown as TraceEvent[])));
  const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', {
    traceConfig: { includedCategories: TRACE_CATEGORIES },
    transferMode: 'ReportEvents',
  });
  if (DETAIL) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
  }
  await page.goto(url, { waitUntil: 'load' });
  // The Sentry SDK's setup at idle time and its pageload transaction (sent 1 s after the page is quiet) included.
  await page.waitForTimeout(5_000);
  const profile = DETAIL ? ((await cdp.send('Profiler.stop')).profile as Profile) : undefined;
  await cdp.send('Tracing.end');
  await complete;
  await context.close();
  return { events, ...(profile ? { profile } : {}) };
}

const sourceMaps = new Map<string, SourceMapConsumer | undefined>();
/** "function (package/file:line)" for a profiled frame of a built chunk, from its hidden source map. */
function frameName(dir: string, frame: Profile['nodes'][number]['callFrame']): string {
  const file = frame.url.replace(/.*\//, '');
  const mapPath = join(dir, 'dist/sourcemaps/assets', `${file}.map`);
  if (!sourceMaps.has(mapPath))
    sourceMaps.set(
      mapPath,
      existsSync(mapPath) ? new SourceMapConsumer(JSON.parse(readFileSync(mapPath, 'utf8'))) : undefined,
    );
  const at = sourceMaps.get(mapPath)?.originalPositionFor({ line: frame.lineNumber + 1, column: frame.columnNumber });
  const where = at?.source ? ` (${at.source.replace(/.*node_modules\//, '')}:${at.line})` : file ? ` (${file})` : '';
  return `${at?.name ?? frame.functionName ?? '(anonymous)'}${where}`;
}

function hottest(dir: string, profile: Profile, from: number, to: number, scaledMs: number): string {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const counts = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    const node = nodes.get(id);
    if (at < from || at > to || !node) return;
    const name = frameName(dir, node.callFrame);
    counts.set(name, (counts.get(name) ?? 0) + 1);
  });
  const total = [...counts.values()].reduce((a, b) => a + b, 0) || 1;
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([name, n]) => `${name} ${Math.round((n / total) * scaledMs)}`)
    .join(', ');
}

/** The page's renderer main thread, its tasks after navigation start, and those past 50 ms once scaled. */
function analyse(dir: string, origin: string, trace: { events: TraceEvent[]; profile?: Profile }): Load | undefined {
  const { events, profile } = trace;
  const navigation = events
    .filter((e) => e.name === 'navigationStart' && e.args?.data?.documentLoaderURL?.startsWith(origin))
    .at(-1);
  const fcp = events.find((e) => e.name === 'firstContentfulPaint' && e.pid === navigation?.pid)?.ts;
  // A trace that missed its start (it happens on a loaded machine) says nothing: the load is left out.
  if (!navigation || !fcp) return undefined;
  const load: Load = { tbt: 0, longTasks: 0, longest: 0, detail: [] };
  const onMain = events.filter((e) => e.pid === navigation.pid && e.tid === navigation.tid && e.ph === 'X');
  for (const task of onMain.filter((e) => e.name === 'RunTask' && e.ts >= navigation.ts)) {
    const scaled = ((task.tdur ?? task.dur ?? 0) / 1000) * CPU_SLOWDOWN;
    if (scaled <= LONG_TASK_MS) continue;
    if (task.ts >= fcp) load.tbt += scaled - LONG_TASK_MS;
    load.longTasks += 1;
    load.longest = Math.max(load.longest, scaled);
    if (!DETAIL) continue;
    const end = task.ts + (task.dur ?? 0);
    const inside = onMain
      .filter((e) => e !== task && e.ts >= task.ts && e.ts + (e.dur ?? 0) <= end && (e.tdur ?? 0) > 1_000)
      .filter((e) =>
        /EvaluateScript|evaluateModule|FunctionCall|TimerFire|RunMicrotasks|Layout|ParseHTML|GC$/.test(e.name),
      )
      .map(
        (e) =>
          `${e.name}${e.args?.data?.url ? ` ${e.args.data.url.replace(/.*\//, '')}` : ''} ${Math.round(((e.tdur ?? 0) / 1000) * CPU_SLOWDOWN)}`,
      );
    const at = Math.round((task.ts - navigation.ts) / 1000);
    load.detail.push(
      `    task at ${at} ms: ${Math.round(scaled)} ms${task.ts < fcp ? ' (before FCP)' : ''}; ${inside.join(' | ')}`,
    );
    if (profile) load.detail.push(`      hottest: ${hottest(dir, profile, task.ts, end, scaled)}`);
  }
  return load;
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ['src/build-if-stale.ts'], { cwd: root, stdio: 'inherit' });
  const capture = await startCaptureServer();
  const builds = [{ name: 'ours', dir: root, web: await startWebBuild(root, capture) }];
  const baseline = process.env.LIGHTHOUSE_BASELINE;
  if (baseline) builds.push({ name: 'baseline', dir: baseline, web: await startWebBuild(baseline, capture) });
  const browser = await launchChromium();
  const loads = new Map<string, Load[]>();
  try {
    for (let run = 1; run <= RUNS; run++) {
      for (const path of PAGES) {
        for (const { name, dir, web } of builds) {
          const load = analyse(dir, web.url, await traceLoad(browser, `${web.url}${path}`));
          const label = `${name} ${path}`;
          if (!load) {
            console.log(`run ${run} ${label}: the trace has no navigation or FCP; left out`);
            continue;
          }
          loads.set(label, [...(loads.get(label) ?? []), load]);
          console.log(`run ${run} ${label.padEnd(30)} TBT (CPU ×4) ${Math.round(load.tbt)} ms, ${load.longTasks} long`);
          for (const line of load.detail) console.log(line);
        }
      }
    }
  } finally {
    await browser.close();
    for (const { web } of builds) await web.kill();
    await capture.close();
  }
  console.log(`\nmedians of ${RUNS} loads; main-thread CPU time ×${CPU_SLOWDOWN}, as Lighthouse's mobile simulation`);
  console.log('| page | TBT (CPU ×4) | long tasks | longest |\n|---|---:|---:|---:|');
  for (const [label, runs] of loads) {
    const cell = (pick: (l: Load) => number) => Math.round(median(runs.map(pick)));
    console.log(`| ${label} | ${cell((l) => l.tbt)} ms | ${cell((l) => l.longTasks)} | ${cell((l) => l.longest)} ms |`);
  }
}

await main();
