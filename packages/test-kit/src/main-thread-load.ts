// One page load in Chromium with its CPU slowed as a phone's (Lighthouse's mobile preset: 4×), traced from before
// navigation until `settleMs` after the load event, so what runs once the page is interactive (a lazy SDK, a widget)
// is in the trace too. main-thread-trace.ts reads the trace.
import type { Browser } from 'playwright-core';
import { analyseTrace, type MainThreadReport, type TaskTime, type TraceEvent } from './main-thread-trace.ts';

export interface MainThreadLoadOptions {
  /** Chromium's CPU throttling rate (Emulation.setCPUThrottlingRate); 1 is none. */
  cpuSlowdown?: number;
  /** How long after `load` the trace goes on. */
  settleMs?: number;
}

export interface MainThreadReadOptions extends MainThreadLoadOptions {
  /** Which clock a task's duration is read from (main-thread-trace.ts); wall time unless given. */
  time?: TaskTime;
}

/** What a trace records to tell a page's tasks and what ran in them (as DevTools' performance panel records). */
export const TRACE_CATEGORIES = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'blink.user_timing',
  'loading',
  'v8.execute',
  'v8',
];

export async function traceLoad(
  browser: Browser,
  url: string,
  { cpuSlowdown = 4, settleMs = 5_000 }: MainThreadLoadOptions = {},
): Promise<TraceEvent[]> {
  const context = await browser.newContext({
    viewport: { width: 412, height: 823 },
    deviceScaleFactor: 1.75,
    isMobile: true,
  });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const events: TraceEvent[] = [];
    cdp.on('Tracing.dataCollected', (event) => events.push(...(event.value as unknown as TraceEvent[])));
    const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpuSlowdown });
    await cdp.send('Tracing.start', {
      traceConfig: { includedCategories: TRACE_CATEGORIES },
      transferMode: 'ReportEvents',
    });
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForTimeout(settleMs);
    await cdp.send('Tracing.end');
    await complete;
    return events;
  } finally {
    await context.close();
  }
}

/** traceLoad then analyseTrace, tried up to three times when the trace missed its navigation (a loaded machine). */
export async function loadMainThread(
  browser: Browser,
  url: string,
  options: MainThreadReadOptions = {},
): Promise<MainThreadReport> {
  for (let attempt = 1; ; attempt++) {
    const report = analyseTrace(await traceLoad(browser, url, options), new URL(url).origin, options.time);
    if (report) return report;
    if (attempt === 3) throw new Error(`three traces of ${url} had no navigation start or first contentful paint`);
  }
}
