// `npm run bench:throttled -w @app/web`: what a phone on slow 4G sees in a real browser, not Lighthouse's simulation
// of it. Each page is loaded in Chromium with the network throttled as Lighthouse's mobile preset assumes (150 ms
// round trip, 1.6 Mbit/s down) and the CPU slowed 4×; printed: first contentful paint, when the app had hydrated
// (the `app:hydrated` mark), and when the last script of the load arrived. Medians of THROTTLED_RUNS (8) loads per
// page; with LIGHTHOUSE_BASELINE (another checkout's services/web, built) its pages are loaded in turn with ours.
// A benchmark, not a test.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, startCaptureServer } from '@app/test-kit';
import { launchChromium } from '@app/test-kit/chromium';
import type { Browser } from 'playwright-core';
import { PAGES, startWebBuild } from './lighthouse-targets.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.THROTTLED_RUNS ?? 8);
/** Lighthouse's mobile preset (its "slow 4G", with the devtools throttling's 0.9 factor on throughput). */
const NETWORK = {
  offline: false,
  latency: 150,
  downloadThroughput: (1_638_400 / 8) * 0.9,
  uploadThroughput: (768_000 / 8) * 0.9,
};

type Load = { fcp: number; hydrated: number; lastScript: number };

async function load(browser: Browser, url: string): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 412, height: 823 }, isMobile: true });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', NETWORK);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForFunction(() => window.__appHydrated === true, undefined, { timeout: 30_000 });
    return await page.evaluate(() => {
      const loaded = (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventStart;
      const scripts = performance
        .getEntriesByType('resource')
        .filter((entry) => entry.name.endsWith('.js') && entry.startTime < loaded);
      return {
        fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
        hydrated: performance.getEntriesByName('app:hydrated')[0]?.startTime ?? Number.NaN,
        lastScript: Math.max(...scripts.map((entry) => (entry as PerformanceResourceTiming).responseEnd)),
      };
    });
  } finally {
    await context.close();
  }
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ['src/build-if-stale.ts'], { cwd: root, stdio: 'inherit' });
  const capture = await startCaptureServer();
  const builds = [{ name: 'ours', web: await startWebBuild(root, capture) }];
  const baseline = process.env.LIGHTHOUSE_BASELINE;
  if (baseline) builds.push({ name: 'baseline', web: await startWebBuild(baseline, capture) });
  const browser = await launchChromium();
  const loads = new Map<string, Load[]>();
  try {
    for (let run = 1; run <= RUNS; run++) {
      for (const path of PAGES) {
        for (const { name, web } of builds) {
          const label = `${name} ${path}`;
          const result = await load(browser, `${web.url}${path}`);
          loads.set(label, [...(loads.get(label) ?? []), result]);
          console.log(
            `run ${run} ${label.padEnd(30)} ${JSON.stringify(result, (_k, v) => (typeof v === 'number' ? Math.round(v) : v))}`,
          );
        }
      }
    }
  } finally {
    await browser.close();
    for (const { web } of builds) await web.kill();
    await capture.close();
  }
  console.log(`\nmedians of ${RUNS} loads; slow 4G (150 ms, 1.6 Mbit/s) and CPU ×4 in Chromium`);
  console.log('| page | first contentful paint | hydrated | last script of the load |\n|---|---:|---:|---:|');
  for (const [label, runs] of loads) {
    const cell = (pick: (l: Load) => number) => `${Math.round(median(runs.map(pick)))} ms`;
    console.log(`| ${label} | ${cell((l) => l.fcp)} | ${cell((l) => l.hydrated)} | ${cell((l) => l.lastScript)} |`);
  }
}

await main();
