// The specification's navigation numbers (§9), bracketed in Chromium with Playwright's fake clock, as
// telemetry-limits.test.ts does for the tracing numbers: a prefetched page is used without a request while younger
// than 30 s (fresh at 29 s, stale at 31 s), kept until 5 minutes (there at 4:59, gone at 5:01), and route code that
// has not arrived after 3.8 s turns the navigation into a full page load (none at 3.7 s, one by 4.0 s).
// navigation.test.ts shows what each state does; this file pins where the lines are.
import type { Page, Request } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { isSameDocument, markDocument, waitForHydration } from '../support/browser.ts';
import { webSuite } from '../support/web.ts';
import { chunkPath } from '../support/web-assets.ts';

/** The specification's values, written out here so that a change to framework/shared/timing.ts fails a test. */
const SPEC = { prefetchFreshMs: 30_000, prefetchExpireMs: 5 * 60_000, routeCodeTimeoutMs: 3_800 };

const suite = webSuite({ DIAGNOSTICS: '1' });
let page: Page;
afterEach(async () => {
  await page?.close();
});

/** A hydrated page at `path` with the fake clock installed, then paused: time moves only when the test moves it. */
async function openPaused(path: string): Promise<Request[]> {
  page = await suite.browser.newPage();
  const pageData: Request[] = [];
  page.on('request', (r) => {
    if (r.headers()['x-page-data'] === '1') pageData.push(r);
  });
  await page.clock.install();
  await page.goto(`${suite.web.url}${path}`);
  await waitForHydration(page);
  await markDocument(page);
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1_000);
  return pageData;
}

const requestsTo = (requests: Request[], path: string) =>
  requests.filter((r) => new URL(r.url()).pathname === path).length;
const cacheSize = () =>
  page.evaluate(() =>
    (window as { __appDiagnostics?: { prefetchCacheSize(): number } }).__appDiagnostics?.prefetchCacheSize(),
  );
/** A click without the pointer: no hover, so no intent prefetch of its own. */
const clickLink = (path: string) =>
  page.evaluate((href) => document.querySelector<HTMLAnchorElement>(`a[href="${href}"]`)?.click(), path);

/** Prefetches `path` by focusing its link (at the paused clock's current time); resolves once its request left. */
async function prefetch(requests: Request[], path: string): Promise<void> {
  await page.focus(`a[href="${path}"]`);
  await expect.poll(() => requestsTo(requests, path)).toBe(1);
}

/** Navigates to `path` by its link, lets time run again, and resolves once the page shows `title`. */
async function navigate(path: string, title: string): Promise<void> {
  await clickLink(path);
  await page.clock.resume();
  await expect.poll(() => page.textContent('main h1')).toBe(title);
  expect(await isSameDocument(page)).toBe(true);
}

describe('prefetch cache', () => {
  it(`uses a prefetched page without a request at 29 s, and asks again at 31 s (fresh for ${SPEC.prefetchFreshMs / 1000} s)`, async () => {
    let requests = await openPaused('/catalog');
    await prefetch(requests, '/catalog/fjord-lamp');
    await page.clock.fastForward(SPEC.prefetchFreshMs - 1_000);
    await navigate('/catalog/fjord-lamp', 'Fjord Lamp');
    expect(requestsTo(requests, '/catalog/fjord-lamp')).toBe(1);
    await page.close();

    requests = await openPaused('/catalog');
    await prefetch(requests, '/catalog/granite-lamp');
    await page.clock.fastForward(SPEC.prefetchFreshMs + 1_000);
    await navigate('/catalog/granite-lamp', 'Granite Lamp');
    expect(requestsTo(requests, '/catalog/granite-lamp')).toBe(2);
  });

  it(`keeps a prefetched page at 4:59 and has evicted it at 5:01 (${SPEC.prefetchExpireMs / 60_000} minutes)`, async () => {
    const requests = await openPaused('/catalog');
    await prefetch(requests, '/catalog/dune-lamp');
    expect(await cacheSize()).toBe(1);
    await page.clock.fastForward(SPEC.prefetchExpireMs - 1_000);
    expect(await cacheSize()).toBe(1);
    await page.clock.fastForward(2_000);
    expect(await cacheSize()).toBe(0);
  });
});

describe('route code timeout', () => {
  it(`loads the target as a document when its code has not arrived: not at 3.7 s, by 4.0 s (${SPEC.routeCodeTimeoutMs} ms)`, async () => {
    await openPaused('/');
    // The chunk's first request is never answered; the full page load's own request for it is.
    let held = false;
    await page.route(
      (url: URL) => url.pathname === chunkPath('src/app/routes/catalog/view.tsx'),
      async (route) => {
        if (held) return route.continue();
        held = true;
      },
    );
    const chunkAsked = page.waitForRequest(
      (request) => new URL(request.url()).pathname === chunkPath('src/app/routes/catalog/view.tsx'),
    );
    await clickLink('/catalog');
    await chunkAsked;

    await page.clock.runFor(3_700);
    await page.waitForTimeout(500); // real time: a full load would have begun by now
    expect(await isSameDocument(page)).toBe(true);
    expect(new URL(page.url()).pathname).toBe('/');

    await page.clock.runFor(300);
    await expect.poll(() => isSameDocument(page).catch(() => false), { timeout: 10_000 }).toBe(false);
    await expect.poll(() => new URL(page.url()).pathname).toBe('/catalog');
    await expect.poll(() => page.textContent('main h1')).toBe('Catalog');
  });
});
