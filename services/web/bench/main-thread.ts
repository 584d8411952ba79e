// `npm run bench:browser -w @app/web`: a phone's main thread in a real browser, beside React Router's own framework.
// Each page of the example (production build, Sentry on) and the ssr-rr peer's `/catalog?limit=50` (our catalog list
// in a React Router framework app, no Sentry) are loaded in Debian's Chromium with the CPU slowed 4× (Lighthouse's
// mobile preset), traced until 5 s after `load`, in interleaved rounds so both see the same machine load. Printed per
// page, medians of BROWSER_RUNS (5) loads: total blocking time and the longest task on the thread's clock (CPU time,
// steady while other processes share the machine) and on the wall clock (what the phone's user waits for), LCP, the
// number of long tasks, and each figure's ratio to the peer's. BROWSER_DETAIL=1 prints every long task of every load
// (thread clock) and what its time went to; BROWSER_CPU_SLOWDOWN=1 loads unthrottled and multiplies every duration
// by 4, as Lighthouse's simulation does. LIGHTHOUSE_BASELINE (another checkout's services/web, built) adds its pages.
// A benchmark, not a test (e2e/web/main-thread.test.ts is the test).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, startCaptureServer } from '@app/test-kit';
import { launchChromium } from '@app/test-kit/chromium';
import { traceLoad } from '@app/test-kit/main-thread';
import { analyseTrace, describeTask, type MainThreadReport } from '@app/test-kit/main-thread-trace';
import { PAGES, startWebBuild } from './lighthouse-targets.ts';
import { type Peer, prepareSsrRrPeer, startSsrRrPeer } from './peer-ssr-rr.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BROWSER_RUNS ?? 5);
const DETAIL = process.env.BROWSER_DETAIL === '1';
/** 4 (Lighthouse's mobile preset) by Chromium's throttling; 1: unthrottled, every duration ×4 as Lighthouse scales. */
const SLOWDOWN = Number(process.env.BROWSER_CPU_SLOWDOWN ?? 4);
const FACTOR = 4 / SLOWDOWN;
const PEER_PAGE = '/catalog?limit=50';
const PEER_LABEL = `ssr-rr ${PEER_PAGE}`;

interface Load {
  thread: MainThreadReport;
  wall: MainThreadReport;
}

const longest = (report: MainThreadReport) => Math.max(0, ...report.longTasks.map((task) => task.duration));
const FIGURES: Array<[string, (load: Load) => number]> = [
  ['TBT (thread)', (l) => l.thread.tbt],
  ['longest (thread)', (l) => longest(l.thread)],
  ['TBT (wall)', (l) => l.wall.tbt],
  ['longest (wall)', (l) => longest(l.wall)],
  ['LCP', (l) => l.wall.lcp],
  ['long tasks (wall)', (l) => l.wall.longTasks.length],
];

async function main(): Promise<void> {
  execFileSync(process.execPath, ['src/build-if-stale.ts'], { cwd: root, stdio: 'inherit' });
  const peerDir = prepareSsrRrPeer();
  const capture = await startCaptureServer();
  const web = await startWebBuild(root, capture);
  const baselineDir = process.env.LIGHTHOUSE_BASELINE;
  const baseline = baselineDir ? await startWebBuild(baselineDir, capture) : undefined;
  let peer: Peer | undefined;
  const browser = await launchChromium();
  const loads = new Map<string, Load[]>();
  try {
    const targets = new Map<string, string>(
      PAGES.flatMap((path) => [
        [`ours ${path}`, `${web.url}${path}`] as [string, string],
        ...(baseline ? [[`baseline ${path}`, `${baseline.url}${path}`] as [string, string]] : []),
      ]),
    );
    if (peerDir) {
      peer = await startSsrRrPeer(peerDir);
      targets.set(PEER_LABEL, `${peer.url}${PEER_PAGE}`);
    } else console.log('the ssr-rr peer is absent (/work/shared/peers/ssr-rr): no ratios');
    for (let run = 1; run <= RUNS; run++) {
      for (const [label, url] of targets) {
        const events = await traceLoad(browser, url, { cpuSlowdown: SLOWDOWN, settleMs: 5_000 });
        const origin = new URL(url).origin;
        const thread = analyseTrace(events, origin, { clock: 'thread', factor: FACTOR });
        const wall = analyseTrace(events, origin, { clock: 'wall', factor: FACTOR });
        if (!thread || !wall) {
          console.log(`run ${run} ${label}: the trace has no navigation or FCP; left out`);
          continue;
        }
        const load = { thread, wall };
        loads.set(label, [...(loads.get(label) ?? []), load]);
        console.log(
          `run ${run} ${label.padEnd(30)} ${FIGURES.map(([name, pick]) => `${name} ${Math.round(pick(load))}`).join('  ')}`,
        );
        if (DETAIL) for (const task of thread.longTasks) console.log(`    ${describeTask(task)}`);
      }
    }
  } finally {
    await browser.close();
    await peer?.stop();
    await web.kill();
    await baseline?.kill();
    await capture.close();
  }
  const cell = (label: string, pick: (load: Load) => number) => median((loads.get(label) ?? []).map(pick));
  console.log(
    `\nmedians of ${RUNS} loads, CPU ${SLOWDOWN === 4 ? 'slowed 4×' : `slowed ${SLOWDOWN}×, durations ×${FACTOR}`}, until 5 s after load; ms (long tasks: a count); ` +
      '(× peer) = ratio to ssr-rr /catalog?limit=50 in the same rounds',
  );
  console.log(`| page | ${FIGURES.map(([name]) => name).join(' | ')} |\n|---|${FIGURES.map(() => '---:').join('|')}|`);
  for (const label of loads.keys()) {
    const cells = FIGURES.map(([name, pick]) => {
      const value = cell(label, pick);
      const peerValue = cell(PEER_LABEL, pick);
      const ratio =
        label !== PEER_LABEL && loads.has(PEER_LABEL) && name !== 'long tasks (wall)'
          ? ` (${peerValue > 0 ? `${(value / peerValue).toFixed(2)}×` : '—'})`
          : '';
      return `${Math.round(value)}${ratio}`;
    });
    console.log(`| ${label} | ${cells.join(' | ')} |`);
  }
}

await main();
