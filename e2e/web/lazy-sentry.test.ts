// The Sentry browser SDK loads after hydration, off the critical path. What must not be lost meanwhile, checked
// where it matters, upstream: browser → the web's tunnel path → the telemetry relay → a capture server (Sentry).
// The SDK's chunk is held back by the test, so "before the SDK arrives" is certain, not a race.
import type { CapturedEnvelope } from '@app/test-kit';
import type { Request, Route } from 'playwright-core';
import { describe, type ExpectStatic, it } from 'vitest';
import { waitForHydration, waitForSentry, watchConsole } from '../support/browser.ts';
import {
  type BrowserTransaction,
  browserTransaction,
  fromBrowser,
  itemOf,
  telemetrySuite,
} from '../support/telemetry-stack.ts';
import { chunkPath, sdkChunkPath } from '../support/web-assets.ts';

/** The lazily loaded SDK's chunk (named by content hash alone: found through the build's manifest). */
const SDK_CHUNK = (url: URL) => url.pathname === sdkChunkPath();

const suite = telemetrySuite();

interface ExceptionValue {
  value?: string;
  mechanism?: { type?: string; handled?: boolean };
}
const exceptionsOf = (envelope: CapturedEnvelope) =>
  (itemOf(envelope, 'event')?.exception as { values?: ExceptionValue[] } | undefined)?.values ?? [];
/** Every envelope the browser sent (through the tunnel path and the relay) with an exception reading `text`. */
const eventsWith = (text: string) =>
  suite.stack.capture.envelopes.filter((e) => fromBrowser(e) && exceptionsOf(e).some((v) => v.value === text));

/** Opens `path` with the SDK's chunk held until `release()`; resolves once the page is hydrated. */
async function openWithSdkHeld(expect: ExpectStatic, path: string) {
  const page = await suite.browser.newPage();
  const seen = watchConsole(page);
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let requested = false;
  await page.route(SDK_CHUNK, async (route: Route) => {
    requested = true;
    await released;
    await route.continue();
  });
  await page.goto(`${suite.stack.web.url}${path}`);
  await waitForHydration(page);
  await expect.poll(() => requested, { timeout: 10_000 }).toBe(true);
  return { page, seen, release };
}

type PageloadTransaction = Omit<BrowserTransaction, 'spans'> & {
  spans: Array<BrowserTransaction['spans'][number] & { start_timestamp: number }>;
  measurements?: Record<string, { value: number }>;
};
const isPageData = (path: string) => (r: Request) =>
  r.headers()['x-page-data'] === '1' && new URL(r.url()).pathname === path;

// The first four run at once, so their fixed waits overlap: each drives a page of its own and finds its envelopes
// upstream by message or trace id. Each uses its own test's `expect` (expect.poll must know which test it is in).
describe('the Sentry SDK loaded after hydration', () => {
  it.concurrent('reports an error and a rejection thrown before it arrived, once each, as uncaught', async ({
    expect,
  }) => {
    const { page, release } = await openWithSdkHeld(expect, '/catalog');
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error('early: thrown before the SDK');
      });
      void Promise.reject(new Error('early: rejected before the SDK'));
    });
    await page.waitForTimeout(300);
    expect(eventsWith('early: thrown before the SDK')).toEqual([]);
    release();
    await waitForSentry(page);
    const { capture } = suite.stack;
    const [thrown] = await Promise.all([
      capture.waitFor((e) => eventsWith('early: thrown before the SDK').includes(e), 20_000),
      capture.waitFor((e) => eventsWith('early: rejected before the SDK').includes(e), 20_000),
    ]);
    const [rejected] = eventsWith('early: rejected before the SDK');
    expect(exceptionsOf(thrown)[0]?.mechanism).toMatchObject({
      type: 'auto.browser.global_handlers.onerror',
      handled: false,
    });
    expect(rejected && exceptionsOf(rejected)[0]?.mechanism).toMatchObject({
      type: 'auto.browser.global_handlers.onunhandledrejection',
      handled: false,
    });
    // An error after the SDK is there goes straight to it, and is not replayed again from the early queue.
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error('later: thrown with the SDK there');
      });
    });
    await capture.waitFor((e) => eventsWith('later: thrown with the SDK there').includes(e), 20_000);
    await page.waitForTimeout(1_500);
    expect(eventsWith('early: thrown before the SDK')).toHaveLength(1);
    expect(eventsWith('early: rejected before the SDK')).toHaveLength(1);
    expect(eventsWith('later: thrown with the SDK there')).toHaveLength(1);
    await page.close();
  });

  it.concurrent('still sends a pageload transaction that covers the whole load, from navigation start', async ({
    expect,
  }) => {
    const { page, release } = await openWithSdkHeld(expect, '/catalog/amber-lamp');
    const [timeOrigin, hydratedAt, serverTrace] = await Promise.all([
      page.evaluate(() => performance.timeOrigin),
      page.evaluate(() => performance.timeOrigin + (performance.getEntriesByName('app:hydrated')[0]?.startTime ?? 0)),
      page.getAttribute('meta[name="sentry-trace"]', 'content'),
    ]);
    await page.waitForTimeout(500);
    const releasedAt = await page.evaluate(() => performance.timeOrigin + performance.now());
    release();
    const transaction = (await browserTransaction(
      suite.stack.capture,
      (t) => t.contexts.trace.op === 'pageload' && t.contexts.trace.trace_id === serverTrace?.split('-')[0],
    )) as PageloadTransaction;
    expect(transaction.transaction).toBe('/catalog/:slug');
    // It starts at navigation start, long before the SDK arrived (held until hydration + 500 ms)...
    expect(Math.abs(transaction.start_timestamp * 1000 - timeOrigin)).toBeLessThan(20);
    expect(transaction.start_timestamp * 1000).toBeLessThan(releasedAt - 500);
    // ...and holds what happened before the SDK: the document's timing, the entry script, the paints.
    const ops = transaction.spans.map((span) => span.op);
    expect(ops).toEqual(expect.arrayContaining(['browser.request', 'browser.response']));
    const entry = chunkPath('src/client/entry.tsx');
    expect(transaction.spans.some((s) => s.op === 'resource.script' && s.description?.endsWith(entry))).toBe(true);
    expect(transaction.spans.some((s) => s.start_timestamp * 1000 < hydratedAt)).toBe(true);
    expect(Object.keys(transaction.measurements ?? {})).toEqual(expect.arrayContaining(['fcp', 'ttfb']));
    await page.close();
  });

  it.concurrent('lets a navigation started before it arrived wait for it, so the navigation is traced', async ({
    expect,
  }) => {
    const { page, release } = await openWithSdkHeld(expect, '/catalog');
    const pageData = page.waitForRequest(isPageData('/catalog/amber-lamp'));
    await page.evaluate(() => document.querySelector<HTMLAnchorElement>('a[href="/catalog/amber-lamp"]')?.click());
    await page.waitForTimeout(300);
    let asked = false;
    void pageData.then(() => {
      asked = true;
    });
    expect(asked).toBe(false);
    release();
    const traceId = (await pageData).headers()['sentry-trace']?.split('-')[0];
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    await expect.poll(() => page.textContent('main h1')).toBe('Amber Lamp');
    const navigation = await browserTransaction(suite.stack.capture, (t) => t.contexts.trace.trace_id === traceId);
    expect(navigation.contexts.trace.op).toBe('navigation');
    expect(navigation.transaction).toBe('/catalog/:slug');
    await page.close();
  });

  it.concurrent('waits for the page to have loaded, which hydration does not', async ({ expect }) => {
    const page = await suite.browser.newPage();
    let sdkRequested = false;
    page.on('request', (r) => {
      if (SDK_CHUNK(new URL(r.url()))) sdkRequested = true;
    });
    // An image still loading holds the document's load event (as a slow subresource on a phone would).
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/held.svg', async (route) => {
      await released;
      await route.fulfill({ contentType: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg"/>' });
    });
    await page.addInitScript(() =>
      document.addEventListener('DOMContentLoaded', () => {
        const image = Object.assign(document.createElement('img'), { src: '/held.svg', alt: '' });
        document.body.append(image);
      }),
    );
    await page.goto(`${suite.stack.web.url}/catalog`, { waitUntil: 'domcontentloaded' });
    await waitForHydration(page);
    // Longer than the idle callback's 2 s timeout that started it after hydration alone.
    await page.waitForTimeout(3_000);
    expect(await page.evaluate(() => document.readyState)).not.toBe('complete');
    expect(sdkRequested).toBe(false);
    release();
    await waitForSentry(page);
    expect(sdkRequested).toBe(true);
    await page.close();
  });

  it('keeps a hydrated page free of console errors and sends its session', async ({ expect }) => {
    const { page, seen, release } = await openWithSdkHeld(expect, '/');
    release();
    await waitForSentry(page);
    await suite.stack.capture.waitFor((e) => fromBrowser(e) && e.items.some((item) => item.type === 'session'), 20_000);
    expect(seen.errors).toEqual([]);
    await page.close();
  });
});
