// The browser's page-data client against the real service on a loopback port (Node's fetch is the browser's API),
// and against a stand-in for what else may answer a page-data request: a proxy's error page, a broken body.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchPageData, PageDataUnavailable } from '../../src/client/navigation/page-data-client.ts';
import { PAGE_DATA_HEADER, PAGE_DATA_VERSION, type PageData } from '../../src/framework/shared/page-data-protocol.ts';
import type { WebApp } from '../../src/server/app.ts';
import { testApp } from '../with-web.ts';

const origin = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

let web: WebApp;
let site: string;
let standIn: Server;
let other: string;
beforeAll(async () => {
  web = await testApp({ CATALOG_RELATED_DELAY_MS: '50' });
  await web.app.listen({ port: 0, host: '127.0.0.1' });
  site = origin(web.app.server);
  const pageDataHeaders = { [PAGE_DATA_HEADER]: PAGE_DATA_VERSION, 'content-type': 'application/x-ndjson' };
  standIn = createServer((req, res) => {
    if (req.url === '/proxy-error') res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>');
    else if (req.url === '/malformed') res.writeHead(200, pageDataHeaders).end('<html>not json');
    else if (req.url === '/cut-short') {
      const first = {
        kind: 'data',
        status: 200,
        loaderData: { r: { part: null } },
        errors: null,
        deferred: { r: ['part'] },
      };
      res.writeHead(200, pageDataHeaders).end(`${JSON.stringify(first)}\n`);
    } else res.writeHead(404).end();
  });
  standIn.listen(0, '127.0.0.1');
  await once(standIn, 'listening');
  other = origin(standIn);
});
afterAll(async () => {
  standIn?.close();
  await web?.app.close();
});

const dataOf = (page: PageData) => {
  if (page.kind !== 'data') throw new Error(`expected page data, got ${JSON.stringify(page)}`);
  return page;
};

describe('fetchPageData against the service', () => {
  it("asks for the listed routes' data at the page's URL and returns it", async () => {
    const page = dataOf(await fetchPageData(`${site}/catalog?q=lamp`, ['catalog']));
    expect(page.status).toBe(200);
    expect(Object.keys(page.loaderData)).toEqual(['catalog']);
    const { items } = page.loaderData.catalog as { items: Array<{ name: string }> };
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((item) => item.name.includes('Lamp'))).toBe(true);
  });

  it('returns at once with the deferred parts as promises, settled when their lines arrive', async () => {
    const page = dataOf(await fetchPageData(`${site}/catalog/amber-lamp`, ['catalog.$slug']));
    const data = page.loaderData['catalog.$slug'] as { item: { name: string }; related: Promise<unknown[]> };
    expect(data.item.name).toBe('Amber Lamp');
    expect(data.related).toBeInstanceOf(Promise);
    const related = await data.related;
    expect(related.length).toBeGreaterThan(0);
  });

  it("posts a form and returns the action's answer: errors with the status, or the redirect signal", async () => {
    const form = { method: 'POST', contentType: 'application/x-www-form-urlencoded' };
    const invalid = dataOf(
      await fetchPageData(`${site}/preferences`, ['preferences'], { ...form, body: 'pageSize=0' }),
    );
    expect(invalid.status).toBe(400);
    expect(invalid.actionData?.preferences).toBeTruthy();
    const saved = await fetchPageData(`${site}/preferences`, ['preferences'], {
      ...form,
      body: 'pageSize=10&theme=dark',
    });
    expect(saved).toMatchObject({ kind: 'redirect', location: '/preferences?saved=1' });
  });
});

describe('fetchPageData when the answer is not page data', () => {
  it.each([
    ['a proxy error page', '/proxy-error', 'not page data (status 502, text/html)'],
    ['a body that is not JSON', '/malformed', 'malformed page data'],
  ])('fails with PageDataUnavailable for %s', async (_, path, message) => {
    const failure = fetchPageData(`${other}${path}`, ['root']);
    await expect(failure).rejects.toThrow(PageDataUnavailable);
    await expect(failure).rejects.toThrow(message);
  });

  it('fails with PageDataUnavailable when nothing answers', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const url = `${origin(closed)}/catalog`;
    closed.close();
    await expect(fetchPageData(url, ['root'])).rejects.toThrow(/^network error/);
  });

  it('passes an abort on as it is (the router cancelled the navigation), not as a reason to reload', async () => {
    const abort = new AbortController();
    abort.abort();
    const failure = fetchPageData(`${site}/catalog`, ['catalog'], { signal: abort.signal });
    await expect(failure).rejects.toMatchObject({ name: 'AbortError' });
    await expect(failure).rejects.not.toThrow(PageDataUnavailable);
  });

  it('fails the deferred parts still pending when the body ends', async () => {
    const page = dataOf(await fetchPageData(`${other}/cut-short`, ['r']));
    const { part } = page.loaderData.r as { part: Promise<unknown> };
    await expect(part).rejects.toThrow('page data ended before its deferred parts arrived');
  });
});
