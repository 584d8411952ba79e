// The web service in Chromium: hydration, client navigation, page data, signals, fallbacks, forms, accessibility.
// One browser and one web process for the file; each test gets a fresh page.
import type { ServiceProcess } from '@app/test-kit';
import type { Browser, Page, Request } from 'playwright-core';

declare global {
  interface Window {
    __appDiagnostics?: { prefetchCacheSize(): number };
  }
}

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runAxe } from '../support/axe.ts';
import {
  isSameDocument,
  launchChromium,
  screenshot,
  waitForHydration,
  watchConsole,
  watchedPage,
} from '../support/browser.ts';
import { openPage } from '../support/navigation-page.ts';
import { startWeb } from '../support/web.ts';
import { chunkPath } from '../support/web-assets.ts';

let web: ServiceProcess;
let browser: Browser;
let page: Page;
let consoleSeen: ReturnType<typeof watchConsole>;
let pageDataRequests: Request[];

beforeAll(async () => {
  [web, browser] = await Promise.all([startWeb({ DIAGNOSTICS: '1' }), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await web?.kill();
});

/** A new page at `path`, hydrated, its page-data requests recorded; `fakeClock` installs Playwright's clock first. */
async function open(path: string, options: { fakeClock?: boolean } = {}): Promise<void> {
  ({ page, consoleSeen, pageDataRequests } = await openPage(browser, `${web.url}${path}`, options));
}
const sameDocument = () => isSameDocument(page);

afterEach(async () => {
  await page?.close();
});

describe('pages', () => {
  it.each([
    ['home', '/', 'Welcome'],
    ['catalog', '/catalog', 'Catalog'],
    ['catalog-item', '/catalog/amber-lamp', 'Amber Lamp'],
    ['preferences', '/preferences', 'Preferences'],
    ['not-found', '/no/such/page', 'Page not found'],
  ])('%s hydrates without a request, console error or hydration warning, and passes axe', async (name, path, h1) => {
    await open(path);
    await expect.poll(() => page.textContent('h1')).toBe(h1);
    expect(pageDataRequests).toHaveLength(0);
    const axe = await runAxe(page);
    const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    await screenshot(page, `page-${name}`);
    // The browser itself logs a 404 document's status; nothing else may appear.
    const expected = name === 'not-found' ? [/^Failed to load resource: .* 404 \(Not Found\)$/] : [];
    expect(consoleSeen.errors.filter((e) => !expected.some((re) => re.test(e)))).toEqual([]);
    expect(consoleSeen.warnings.filter((w) => /hydrat|did not match/i.test(w))).toEqual([]);
  });
});

describe('client navigation', () => {
  it('navigates without a reload, with exactly one page-data request, announced and focused', async () => {
    await open('/catalog');
    // A click with no hover before it, so no prefetch: the navigation's own request.
    await page.locator('a[href="/catalog/brisk-lamp"]').evaluate((link: HTMLElement) => link.click());
    await expect.poll(() => page.textContent('h1')).toBe('Brisk Lamp');
    expect(await sameDocument()).toBe(true);
    expect(pageDataRequests).toHaveLength(1);
    const request = pageDataRequests[0];
    expect(new URL(request?.url() ?? '').pathname).toBe('/catalog/brisk-lamp');
    expect(request?.method()).toBe('GET');
    // Only the loader that must run: the layout's data does not change between these pages.
    expect(request?.headers()['x-page-data-routes']).toBe('catalog.$slug');
    expect(request?.headers().accept).toBe('application/json');
    expect(await page.title()).toBe('Brisk Lamp · Example Store');
    await expect
      .poll(() => page.textContent('[data-testid="route-announcer"]'))
      .toBe('Navigated to Brisk Lamp · Example Store');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    expect(consoleSeen.errors).toEqual([]);
  });

  it('follows a redirect signal and shows the not-found view on client navigation', async () => {
    await open('/diagnostics/ignored-error');
    await page.click('text=a moved page');
    await page.waitForURL(`${web.url}/catalog/amber-lamp`);
    await expect.poll(() => page.textContent('h1')).toBe('Amber Lamp');
    await page.goBack();
    await page.click('text=a missing item');
    await expect.poll(() => page.textContent('h1')).toBe('Page not found');
    expect(page.url()).toBe(`${web.url}/catalog/no-such-item`);
    expect(await page.title()).toBe('Page not found');
    expect(await sameDocument()).toBe(true);
  });

  it('follows a redirect on first load', async () => {
    await open('/catalog/old-amber-lamp');
    expect(page.url()).toBe(`${web.url}/catalog/amber-lamp`);
    expect(await page.textContent('h1')).toBe('Amber Lamp');
  });

  it('shows HTML, never the page-data JSON, when Back returns to a client-navigated URL', async () => {
    await open('/catalog');
    await page.click('a[href="/catalog/cedar-lamp"]');
    await expect.poll(() => page.textContent('h1')).toBe('Cedar Lamp');
    await page.goto(`${web.url}/preferences`); // a full page load elsewhere
    await page.goBack();
    await expect.poll(() => page.textContent('h1')).toBe('Cedar Lamp');
    expect(await page.evaluate(() => document.contentType)).toBe('text/html');
  });

  it('restores the scroll position on Back and starts a new page at the top', async () => {
    await open('/catalog?limit=50');
    const link = page.locator('.catalog-list a').nth(45);
    await link.scrollIntoViewIfNeeded();
    const scrolled = await page.evaluate(() => window.scrollY);
    expect(scrolled).toBeGreaterThan(300);
    await link.click();
    await expect.poll(() => page.evaluate(() => document.querySelector('h1')?.textContent)).not.toBe('Catalog');
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    await page.goBack();
    await expect.poll(() => page.textContent('h1')).toBe('Catalog');
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(scrolled);
    expect(await sameDocument()).toBe(true);
  });
});

describe('server and client failures', () => {
  it('shows the client exception screen with the exact text', async () => {
    await open('/diagnostics/client-error');
    await page.click('text=Throw in the browser');
    await expect
      .poll(() => page.textContent('main h1'))
      .toBe('Application error: a client-side exception has occurred (see the browser console for more information)');
    // The error itself goes to the console.
    expect(consoleSeen.errors.some((e) => e.includes('diagnostics: render failure'))).toBe(true);
    await screenshot(page, 'client-exception');
  });

  it('shows the server exception screen with a digest after a client navigation', async () => {
    await open('/diagnostics/client-error');
    await page.click('a[href="/diagnostics/server-error"]');
    await expect.poll(() => page.textContent('main h1')).toContain('a server-side exception has occurred');
    const digest = await page.textContent('[data-testid="digest"]');
    expect(digest).toMatch(/^[0-9a-f]{32}$/);
    expect(await sameDocument()).toBe(true);
    expect(await page.content()).not.toContain('secret-internal-detail');
    await screenshot(page, 'server-exception');
  });
});

describe('fallbacks to a full page load', () => {
  it('loads the target as a document when page data fails (an HTML error from a proxy)', async () => {
    await open('/catalog');
    await page.route(
      (url) => url.pathname === '/catalog/dune-lamp',
      (route) =>
        route.request().headers()['x-page-data'] === '1'
          ? route.fulfill({ status: 502, contentType: 'text/html', body: '<h1>Bad gateway</h1>' })
          : route.continue(),
    );
    await page.click('a[href="/catalog/dune-lamp"]');
    await expect.poll(() => sameDocument().catch(() => true)).toBe(false);
    expect(page.url()).toBe(`${web.url}/catalog/dune-lamp`);
    await expect.poll(() => page.textContent('h1')).toBe('Dune Lamp');
    expect(await sameDocument()).toBe(false);
  });

  it('loads the target as a document when its route code takes longer than 3.8 s', async () => {
    await open('/');
    let delayed = 0;
    await page.route(
      (url: URL) => url.pathname === chunkPath('src/app/routes/catalog/view.tsx'),
      async (route) => {
        if (delayed++ === 0) await new Promise((r) => setTimeout(r, 6_000));
        await route.continue().catch(() => {});
      },
    );
    const started = Date.now();
    await page.click('a[href="/catalog"]');
    await expect.poll(() => sameDocument().catch(() => true), { timeout: 10_000 }).toBe(false);
    expect(page.url()).toBe(`${web.url}/catalog`);
    await expect.poll(() => page.textContent('h1')).toBe('Catalog');
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_700);
  });
});

describe('initial load without route code', () => {
  it('keeps the server-rendered page (no reload loop) when its own code cannot load', async () => {
    page = await browser.newPage();
    consoleSeen = watchConsole(page);
    let documents = 0;
    page.on('request', (request) => {
      if (request.resourceType() === 'document') documents++;
    });
    await page.route(
      (url: URL) => url.pathname === chunkPath('src/app/routes/catalog.$slug/view.tsx'),
      (route) => route.abort(),
    );
    await page.goto(`${web.url}/catalog/amber-lamp`);
    await page.waitForTimeout(1_500);
    expect(documents).toBe(1);
    expect(await page.textContent('h1')).toBe('Amber Lamp');
    expect(await page.evaluate(() => (window as { __appHydrated?: boolean }).__appHydrated)).toBeUndefined();
    // Plain links still work: a full page load.
    await page.click('text=Back to the catalog');
    await expect.poll(() => page.textContent('h1')).toBe('Catalog');
  });
});

describe('forms', () => {
  it('validates and saves preferences through page data', async () => {
    await open('/preferences');
    await page.fill('#pageSize', '500');
    await page.click('button[type="submit"]');
    await expect.poll(() => page.textContent('#pageSize-error')).toBe('Choose a whole number from 5 to 50.');
    expect(pageDataRequests.map((r) => r.method())).toEqual(['POST']);
    await page.fill('#pageSize', '12');
    await page.fill('#displayName', 'Grace');
    await page.click('button[type="submit"]');
    await expect.poll(() => page.textContent('[role="status"]')).toBe('Your preferences were saved.');
    expect(await page.textContent('.greeting')).toBe('Hello, Grace');
    expect(await sameDocument()).toBe(true);
    await screenshot(page, 'preferences-saved');
  });

  it('works without JavaScript: links and the form are plain HTML', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const plain = await context.newPage();
    await plain.goto(`${web.url}/preferences`);
    await plain.fill('#pageSize', '0');
    await plain.click('button[type="submit"]');
    expect(await plain.textContent('#pageSize-error')).toBe('Choose a whole number from 5 to 50.');
    await plain.fill('#pageSize', '25');
    await plain.click('button[type="submit"]');
    await plain.waitForURL(`${web.url}/preferences?saved=1`);
    expect(await plain.textContent('[role="status"]')).toBe('Your preferences were saved.');
    await plain.click('text=Catalog');
    expect(await plain.textContent('h1')).toBe('Catalog');
    await context.close();
  });
});

describe('prefetch', () => {
  const dataRequestsTo = (path: string) => pageDataRequests.filter((r) => new URL(r.url()).pathname === path).length;

  it('asks once for a page a slow navigation is already fetching, though the pointer rests on its link', async () => {
    await open('/catalog', { fakeClock: true });
    // Prefetched by focus, then stale: the click (no new focus) navigates with a request of its own, whose answer
    // outlasts the hover's intent delay, so the hover's prefetch comes due mid-navigation.
    const path = '/catalog/dune-lamp';
    await page.focus(`a[href="${path}"]`);
    await expect.poll(() => dataRequestsTo(path)).toBe(1);
    await page.clock.fastForward('00:31');
    await page.route(
      (url) => url.pathname === path,
      async (route) => {
        await new Promise((r) => setTimeout(r, 400));
        return route.continue();
      },
    );
    await page.click(`a[href="${path}"]`);
    await expect.poll(() => page.textContent('h1')).toBe('Dune Lamp');
    await page.waitForTimeout(200);
    expect(dataRequestsTo(path)).toBe(2);
  });

  it('prefetches a link marked data-prefetch="viewport" once it scrolls into view', async () => {
    await open('/catalog');
    const nextPage = () => pageDataRequests.filter((r) => new URL(r.url()).search === '?page=2').length;
    await page.waitForTimeout(300);
    expect(nextPage()).toBe(0);
    await page.locator('a[rel="next"]').scrollIntoViewIfNeeded();
    await expect.poll(nextPage).toBe(1);
    await page.click('a[rel="next"]');
    await expect.poll(() => page.textContent('main p[aria-live]')).toContain('page 2 of');
    expect(nextPage()).toBe(1);
  });

  it('prefetches nothing when the user asked to save data', async () => {
    ({ page, pageDataRequests } = await watchedPage(browser));
    await page.addInitScript(() => {
      Object.defineProperty(navigator, 'connection', { value: { saveData: true }, configurable: true });
    });
    await page.goto(`${web.url}/catalog`);
    await waitForHydration(page);
    await page.hover('a[href="/catalog/ember-lamp"]');
    await page.focus('a[href="/catalog/dune-lamp"]');
    await page.waitForTimeout(500);
    expect(pageDataRequests).toHaveLength(0);
  });

  it('keeps at most 5 prefetches in flight', async () => {
    await open('/catalog?limit=50');
    let inFlight = 0;
    let maxInFlight = 0;
    let handled = 0;
    await page.route(
      (url) => url.pathname.startsWith('/catalog/'),
      async (route) => {
        if (route.request().headers()['x-page-data'] !== '1') return route.continue();
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 300));
        inFlight--;
        handled++;
        return route.continue();
      },
    );
    await page.evaluate(() => {
      for (const link of [...document.querySelectorAll<HTMLAnchorElement>('.catalog-list a')].slice(0, 12))
        link.focus();
    });
    await expect.poll(() => handled, { timeout: 10_000 }).toBe(12);
    expect(maxInFlight).toBe(5);
  });

  it('uses a fresh entry, refetches a stale one after 30 s, and evicts it after 5 minutes', async () => {
    await open('/catalog', { fakeClock: true });
    const cacheSize = () => page.evaluate(() => window.__appDiagnostics?.prefetchCacheSize());

    // Fresh: prefetched, then the navigation makes no request.
    await page.focus('a[href="/catalog/fjord-lamp"]');
    await expect.poll(() => dataRequestsTo('/catalog/fjord-lamp')).toBe(1);
    await page.click('a[href="/catalog/fjord-lamp"]');
    await expect.poll(() => page.textContent('h1')).toBe('Fjord Lamp');
    expect(dataRequestsTo('/catalog/fjord-lamp')).toBe(1);

    // Stale after 30 s: the navigation asks again.
    await page.goBack();
    await expect.poll(() => page.textContent('h1')).toBe('Catalog');
    await page.focus('a[href="/catalog/granite-lamp"]');
    await expect.poll(() => dataRequestsTo('/catalog/granite-lamp')).toBe(1);
    await page.clock.fastForward('00:31');
    await page.click('a[href="/catalog/granite-lamp"]');
    await expect.poll(() => page.textContent('h1')).toBe('Granite Lamp');
    expect(dataRequestsTo('/catalog/granite-lamp')).toBe(2);
    expect(await cacheSize()).toBeGreaterThanOrEqual(1);

    // Expired after 5 minutes: evicted.
    await page.clock.fastForward('05:00');
    expect(await cacheSize()).toBe(0);
  });
});

describe('caching', () => {
  it('caches hashed assets for a year and revalidates the HTML every time', async () => {
    const html = await fetch(`${web.url}/catalog`);
    expect(html.headers.get('cache-control')).toBe('private, no-cache');
    const entry = /<script type="module" nonce="[^"]+" src="([^"]+)"/.exec(await html.text())?.[1];
    expect(entry).toBe(chunkPath('src/client/entry.tsx'));
    const asset = await fetch(`${web.url}${entry}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const missing = await fetch(`${web.url}/assets/nope-123.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).not.toContain('text/html');
  });
});
