// Client navigations that cannot complete turn into a full page load of their target: a route chunk that fails
// (404, aborted) and page data that fails (network error, malformed JSON). And what the browser's own requests
// look like: page data with same-origin credentials, an action POSTed to the current address.
import type { Page, Request, Route } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { isSameDocument, markDocument, waitForHydration, watchedPage } from '../support/browser.ts';
import { webSuite } from '../support/web.ts';
import { chunkPath } from '../support/web-assets.ts';

const suite = webSuite({ DIAGNOSTICS: '1' });
let page: Page;
let pageDataRequests: Request[];

afterEach(async () => {
  await page?.close();
});

async function open(path: string): Promise<void> {
  ({ page, pageDataRequests } = await watchedPage(suite.browser));
  await page.goto(`${suite.web.url}${path}`);
  await waitForHydration(page);
  await markDocument(page);
}

/** Clicks a link and expects a full page load (a new document) of its target, showing `heading`. */
async function expectFullLoad(href: string, heading: string): Promise<void> {
  await page
    .locator(`a[href="${href}"]`)
    .first()
    .evaluate((link: HTMLElement) => link.click());
  await expect.poll(() => isSameDocument(page).catch(() => true), { timeout: 10_000 }).toBe(false);
  expect(page.url()).toBe(`${suite.web.url}${href}`);
  await expect.poll(() => page.textContent('h1').catch((e) => String(e)), { timeout: 10_000 }).toBe(heading);
}

describe('a route chunk that fails during a client navigation', () => {
  it.each([
    ['answers 404', (route: Route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'Not Found' })],
    ['is aborted', (route: Route) => route.abort('failed')],
  ])('%s: the target is loaded as a document', async (_, fail) => {
    await open('/');
    let failed = 0;
    // Only the navigation's own import fails; the full load that follows may fetch the chunk again.
    await page.route(
      (url: URL) => url.pathname === chunkPath('src/app/routes/catalog/view.tsx'),
      (route) => (failed++ === 0 ? fail(route) : route.continue()),
    );
    const documents: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'document') documents.push(new URL(request.url()).pathname);
    });
    await expectFullLoad('/catalog', 'Catalog');
    expect(failed).toBeGreaterThanOrEqual(1);
    // One full load: the route's two lazy parts (view and handle) both fail, and each restarting it would cost a
    // second document request.
    expect(documents).toEqual(['/catalog']);
  });
});

describe('page data that fails during a client navigation', () => {
  it.each([
    ['a network error', (route: Route) => route.abort('connectionreset')],
    [
      'malformed JSON',
      (route: Route) =>
        route.fulfill({
          status: 200,
          headers: { 'content-type': 'application/json', 'x-page-data': '1' },
          body: '{"kind":"data","status":200,"loaderData":{',
        }),
    ],
  ])('%s: the target is loaded as a document', async (_, fail) => {
    await open('/catalog');
    await page.route(
      (url) => url.pathname === '/catalog/dune-lamp',
      (route) => (route.request().headers()['x-page-data'] === '1' ? fail(route) : route.continue()),
    );
    await expectFullLoad('/catalog/dune-lamp', 'Dune Lamp');
    expect(pageDataRequests.length).toBeGreaterThanOrEqual(1);
  });
});

describe("the browser's requests", () => {
  it('asks for page data at the target address with same-origin credentials (the cookie goes along)', async () => {
    ({ page, pageDataRequests } = await watchedPage(suite.browser));
    await page.context().addCookies([{ name: 'probe', value: 'same-origin', url: suite.web.url }]);
    // What the page passes to fetch(), recorded before any of its code runs.
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { __fetchCredentials: string[] }).__fetchCredentials = seen;
      const original = window.fetch;
      window.fetch = (input, init) => {
        if (new Headers(init?.headers).get('x-page-data') === '1') seen.push(String(init?.credentials));
        return original(input, init);
      };
    });
    await page.goto(`${suite.web.url}/catalog`);
    await waitForHydration(page);
    await page.locator('a[href="/catalog/ember-lamp"]').evaluate((link: HTMLElement) => link.click());
    await expect.poll(() => page.textContent('h1')).toBe('Ember Lamp');
    expect(pageDataRequests.map((r) => r.url())).toEqual([`${suite.web.url}/catalog/ember-lamp`]);
    expect(await pageDataRequests[0]?.headerValue('cookie')).toBe('probe=same-origin');
    expect(
      await page.evaluate(() => (window as unknown as { __fetchCredentials: string[] }).__fetchCredentials),
    ).toEqual(['same-origin']);
  });

  it('POSTs an action to the current address, query included, as page data', async () => {
    await open('/preferences?saved=1');
    await page.fill('#pageSize', '500');
    await page.click('button[type="submit"]');
    await expect.poll(() => page.textContent('#pageSize-error')).toBe('Choose a whole number from 5 to 50.');
    const posts = pageDataRequests.filter((r) => r.method() === 'POST');
    expect(posts.map((r) => r.url())).toEqual([`${suite.web.url}/preferences?saved=1`]);
    expect(posts[0]?.headers()['content-type']).toBe('application/x-www-form-urlencoded;charset=UTF-8');
    expect(await isSameDocument(page)).toBe(true);
  });
});
