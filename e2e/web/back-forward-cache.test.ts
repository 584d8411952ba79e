// The back/forward cache in Chromium, with Sentry on as deployed (its SDK loads after hydration): a document sent
// `private, no-cache` is restored by Back after a full load, also when the user had moved on inside it by client
// navigation (its page-data responses are `no-store`, which does not keep it out); one sent `no-store` (rendered
// from the visitor's prefs cookie) is loaded again.
import { type CaptureServer, type ServiceProcess, startCaptureServer } from '@app/test-kit';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitForHydration, waitForSentry } from '../support/browser.ts';
import { startWeb } from '../support/web.ts';

declare global {
  interface Window {
    __pageshows?: boolean[];
  }
}

let capture: CaptureServer;
let web: ServiceProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let inFlight = 0;

// Debian's Chromium as in support/browser.ts, but with the back/forward cache that playwright turns off by default.
const launchWithBackForwardCache = () =>
  chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    ignoreDefaultArgs: ['--disable-back-forward-cache'],
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-component-update'],
  });

beforeAll(async () => {
  capture = await startCaptureServer();
  [web, browser] = await Promise.all([
    startWeb({ SENTRY_DSN: capture.dsn(), SENTRY_TRACES_SAMPLE_RATE: '1', TUNNEL_TARGET: capture.envelopeUrl() }),
    launchWithBackForwardCache(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await web?.kill();
  await capture?.close();
});
afterEach(async () => {
  await context?.close();
});

async function open(cookies: Array<{ name: string; value: string }> = []): Promise<void> {
  context = await browser.newContext();
  if (cookies.length > 0) await context.addCookies(cookies.map((c) => ({ ...c, url: web.url })));
  // Each new document records its pageshow events; a document restored from the cache keeps its own record.
  await context.addInitScript(() => {
    window.__pageshows = [];
    window.addEventListener('pageshow', (event) => window.__pageshows?.push(event.persisted));
  });
  page = await context.newPage();
  inFlight = 0;
  page.on('request', () => inFlight++);
  page.on('requestfinished', () => inFlight--);
  page.on('requestfailed', () => inFlight--);
}

/** Full load of `from`, full load of `to`, then Back: how `from` came back. */
async function backAfterFullLoad(from: string, to: string) {
  await page.goto(`${web.url}${from}`);
  await waitForHydration(page);
  return backAfterLeavingFor(to);
}

/** From the page shown now: full load of `to`, then Back: how the page came back. */
async function backAfterLeavingFor(to: string) {
  // A request still in flight (the SDK's or the feedback widget's chunk, loaded after hydration) would keep the page
  // out of the cache.
  await waitForSentry(page);
  await expect.poll(() => inFlight, { timeout: 10_000 }).toBe(0);
  await page.goto(`${web.url}${to}`);
  await waitForHydration(page);
  // A restored page fires no load event: wait for the commit, then for its pageshow.
  await page.goBack({ waitUntil: 'commit' });
  await page.waitForFunction(() => (window.__pageshows?.length ?? 0) > 0 && document.readyState === 'complete');
  return page.evaluate(() => ({
    pageshows: window.__pageshows,
    navigationType: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).type,
    path: location.pathname,
  }));
}

const PREFS = Buffer.from(JSON.stringify({ theme: 'dark', displayName: 'Ada', pageSize: 10 })).toString('base64');

describe('back/forward cache', () => {
  it.each([
    ['/catalog', '/catalog/amber-lamp'],
    ['/', '/preferences'],
  ])('restores %s from the cache on Back after a full load of %s', async (from, to) => {
    await open();
    const back = await backAfterFullLoad(from, to);
    expect(back.path).toBe(from);
    // The same document as before (its first pageshow, then the restore), not a new load.
    expect(back.pageshows).toEqual([false, true]);
    expect(back.navigationType).toBe('navigate');
  });

  it('restores a page reached by client navigation on Back after a full load, with its router working', async () => {
    await open();
    await page.goto(`${web.url}/catalog`);
    await waitForHydration(page);
    await page.click('a[href="/catalog/amber-lamp"]');
    await expect.poll(() => page.textContent('main h1')).toBe('Amber Lamp');
    const back = await backAfterLeavingFor('/preferences');
    expect(back.path).toBe('/catalog/amber-lamp');
    // The document first loaded as /catalog, restored: not a new load of /catalog/amber-lamp.
    expect(back.pageshows).toEqual([false, true]);
    expect(back.navigationType).toBe('navigate');
    expect(await page.textContent('main h1')).toBe('Amber Lamp');
    // Back once more is the restored router's own (client) navigation, in the same document.
    await page.evaluate(() => history.back());
    await expect.poll(() => page.textContent('main h1')).toBe('Catalog');
    expect(await page.evaluate(() => window.__pageshows)).toEqual([false, true]);
  });

  it('loads a page rendered from the prefs cookie again on Back', async () => {
    await open([{ name: 'prefs', value: encodeURIComponent(PREFS) }]);
    const back = await backAfterFullLoad('/catalog', '/catalog/amber-lamp');
    expect(back.path).toBe('/catalog');
    expect(back.pageshows).toEqual([false]);
    expect(back.navigationType).toBe('back_forward');
    expect(await page.textContent('.greeting')).toBe('Hello, Ada');
  });
});
