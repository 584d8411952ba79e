// A phone's main thread (issue 39): no page of the example has a task over 200 ms with the CPU slowed 4× (Lighthouse's
// mobile preset), from navigation until 5 s after `load` — hydration, the lazy Sentry SDK's setup, the feedback
// widget and the pageload transaction's end included. The first-load budget counts bytes; this counts main-thread
// work, which a newer Chromium or a dependency can move without a byte changing. Other processes on the machine only
// ever add time to a task, so each page's figure is the least of three loads' longest tasks: a task that long in
// every load is the page's own. A load with no task over the budget already settles that least, so loading stops
// there: a passing page takes one load, a failing one still three. Figures: docs/benchmarks.md.
import { loadMainThread } from '@app/test-kit/main-thread';
import { describeTask, type MainThreadReport } from '@app/test-kit/main-thread-trace';
import { describe, expect, it } from 'vitest';
import { waitForSentry } from '../support/browser.ts';
import { reportingWebSuite } from '../support/web.ts';

const PAGES = ['/', '/catalog', '/catalog/amber-lamp', '/preferences'];
const LOADS = 3;
const TASK_BUDGET_MS = 200;
// The thread's clock: a task's CPU time, slowed 4× by Chromium, without the time other processes held the CPU.
const TIME = { clock: 'thread', factor: 1 } as const;

const suite = reportingWebSuite({});

const longest = (report: MainThreadReport) => Math.max(0, ...report.longTasks.map((task) => task.duration));

describe('the main thread while a page loads, CPU slowed 4×', () => {
  it.each(PAGES)(
    '%s has no task over 200 ms until 5 s after load',
    async (path) => {
      const loads: MainThreadReport[] = [];
      while (loads.length < LOADS && !loads.some((load) => longest(load) <= TASK_BUDGET_MS))
        loads.push(await loadMainThread(suite.browser, `${suite.web.url}${path}`, { time: TIME }));
      const figures = `${path}, longest task of each load: ${loads.map((l) => Math.round(longest(l))).join(', ')} ms`;
      console.log(figures);
      loads.sort((a, b) => longest(a) - longest(b));
      const least = loads[0] as MainThreadReport;
      const over = least.longTasks.filter((task) => task.duration > TASK_BUDGET_MS).map(describeTask);
      // The tasks over budget, and what their time went to, are the failure's message.
      expect(over, figures).toEqual([]);
    },
    LOADS * 30_000,
  );

  // What the browser is served, brotli as it asks (a trial that dropped the precompressed copies was confounded): the
  // entry begins with V8's compile hint, and no chunk the page preloads reads an Error's stack as it is evaluated (the
  // Debug ID line did: V8 re-parsed the whole chunk for its positions). Exact, whatever the machine's load.
  it('serves the entry with the compile hint and no chunk reading a stack at its top', async () => {
    const page = await suite.browser.newPage();
    try {
      await page.goto(`${suite.web.url}/catalog`);
      const [entry, ...preloaded] = await page.evaluate(() => [
        (document.querySelector('script[type=module][src]') as HTMLScriptElement).src,
        ...[...document.querySelectorAll<HTMLLinkElement>('link[rel=modulepreload]')].map((link) => link.href),
      ]);
      expect(preloaded.length).toBeGreaterThan(3);
      for (const url of [entry, ...preloaded] as string[]) {
        const response = await page.request.get(url, { headers: { 'accept-encoding': 'br' } });
        // The hint (the entry and its imports) and the Debug ID line come before any module code. Chunks under 1 KB
        // have no precompressed copy; the entry's must be the brotli one.
        const top = (await response.text()).split('\n', 2);
        if (url === entry) {
          expect(response.headers()['content-encoding']).toBe('br');
          expect(top[0]).toBe('//# allFunctionsCalledOnLoad');
        }
        const idLine = top.find((line) => line.includes('_sentryDebugIds')) ?? '';
        expect(idLine, url).toContain('import.meta.url');
        expect(/\.stack\b/.test(idLine), url).toBe(false);
      }
    } finally {
      await page.close();
    }
  });

  // The cause of issue 39's longest task, checked where it cannot depend on the machine's load: the SDK takes a fetch
  // that is not the browser's own for an instrumented one and builds a hidden iframe to find a clean one.
  it("the Sentry SDK sets up without making an iframe (the browser's own fetch is back in place)", async () => {
    const page = await suite.browser.newPage();
    try {
      let frames = 0;
      page.on('frameattached', () => {
        frames += 1;
      });
      await page.goto(`${suite.web.url}/catalog`);
      await waitForSentry(page);
      await page.getByRole('button', { name: 'Send feedback' }).waitFor();
      expect(frames).toBe(0);
      expect(await page.evaluate(() => /\[native code\]/.test(String(window.fetch)))).toBe(true);
    } finally {
      await page.close();
    }
  });
});
