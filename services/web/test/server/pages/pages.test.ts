// Documents and page data served from one URL: odd requests, signals, server failures and actions.
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { SERVER_ERROR_TEXT } from '../../../src/framework/shared/page-data-protocol.ts';
import { appForTest, pageData, withWeb } from '../../with-web.ts';

const web = withWeb();
let app: FastifyInstance;
beforeAll(() => ({ app } = web));

const form = (body: string, headers: Record<string, string> = {}) => ({
  method: 'POST' as const,
  url: '/preferences',
  headers: { 'content-type': 'application/x-www-form-urlencoded', host: 'shop.test', ...headers },
  payload: body,
});

describe('documents and page data from one URL', () => {
  it('answers a document request with HTML and never JSON, in one piece when nothing is left to stream', async () => {
    const res = await app.inject({ url: '/catalog' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    // Complete at its shell, so not streamed: its length is known (a stream is chunked, without one).
    expect(res.headers['transfer-encoding']).toBeUndefined();
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    expect(res.body).toMatch(/<\/html>$/);
    expect(res.headers.vary).toBe('X-Page-Data, X-Page-Data-Routes, Accept-Encoding');
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(res.body).toMatch(/^<!DOCTYPE html>/);
    expect(res.body).toContain('<h1>Catalog</h1>');
    expect(res.body).toContain('<title>Catalog, page 1 · Example Store</title>');
    expect(res.body).toContain('window.__staticRouterHydrationData');
    // The matched routes' code is preloaded, like the entry at low priority: none of it is needed for the first paint.
    expect(res.body).toMatch(
      /<link rel="modulepreload" href="\/assets\/routes_catalog_view_tsx.js" nonce="[0-9a-f]{32}" fetchpriority="low">/,
    );
    expect(res.body).toContain('src="/assets/entry.js" fetchpriority="low"></script>');
  });

  it('answers a page-data request with JSON for the requested routes only, never HTML', async () => {
    const res = await app.inject({ url: '/catalog?q=lamp', headers: pageData('catalog') });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers.vary).toBe('X-Page-Data, X-Page-Data-Routes, Accept-Encoding');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-page-data']).toBe('1');
    const body = res.json();
    expect(body.kind).toBe('data');
    expect(Object.keys(body.loaderData)).toEqual(['catalog']);
    expect(body.loaderData.catalog.items.every((i: { name: string }) => i.name.includes('Lamp'))).toBe(true);
  });

  it('sends what the list shows of each item and no more, in page data and in the document (decision 035)', async () => {
    const data = await app.inject({ url: '/catalog?limit=50', headers: pageData('catalog') });
    const { items } = data.json().loaderData.catalog;
    expect(items).toHaveLength(50);
    expect(items[0]).toEqual({ id: 1, slug: 'amber-lamp', name: 'Amber Lamp', priceCents: 8919, inStock: true });
    const doc = await app.inject({ url: '/catalog?limit=50' });
    expect(doc.body).not.toContain('made to last');
    // The items' links are plain anchors (one listener navigates on the client), not a <Link> each.
    expect(doc.body).toContain(
      '<li><a href="/catalog/amber-lamp">Amber Lamp</a><span class="price">€89.19</span></li>',
    );
  });

  it('tells a client with a different route table to load the document', async () => {
    const res = await app.inject({ url: '/catalog', headers: pageData('catalog.$slug') });
    expect(res.json()).toMatchObject({ kind: 'redirect', location: '/catalog', reloadDocument: true });
  });

  it("gives the browser SDK the service's Sentry settings in the document", async () => {
    const dsn = 'https://pub@o42.ingest.example/7';
    const env = { SENTRY_DSN: dsn, SENTRY_ORG_ID: '42', SENTRY_TRACES_SAMPLE_RATE: '0.5', TUNNEL_PATH: '/t' };
    const { app: configured } = await appForTest(env);
    const res = await configured.inject({ url: '/catalog' });
    const json = /<script type="application\/json" id="client-config">(.*?)<\/script>/.exec(res.body)?.[1] ?? '';
    expect(JSON.parse(json).sentry).toMatchObject({ dsn, tunnel: '/t', tracesSampleRate: 0.5, orgId: '42' });
    // This document's style nonce, the one its policy allows (the config's JSON is made once, the nonce put in).
    const { styleNonce } = JSON.parse(json);
    expect(styleNonce).toMatch(/^[0-9a-f]{32}$/);
    expect(res.headers['content-security-policy']).toContain(`'nonce-${styleNonce}'`);
    const again = await configured.inject({ url: '/catalog' });
    expect(again.body).toContain('"styleNonce":"');
    expect(again.body).not.toContain(styleNonce);
  });

  it('refuses a malformed route list', async () => {
    const res = await app.inject({ url: '/catalog', headers: pageData('root,<script>') });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('X-Page-Data-Routes must list route ids');
  });
});

describe('odd requests', () => {
  it('keeps a path that looks like another host on this host', async () => {
    const res = await app.inject({ url: '//evil.example/catalog', headers: pageData('catalog') });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = res.json();
    if (body.kind === 'redirect') expect(body.location).toBe('/evil.example/catalog');
    else expect(body.status).toBe(404);
  });

  it('answers a malformed Host header with 400', async () => {
    const res = await app.inject({ url: '/catalog', headers: { host: 'exa mple' } });
    expect(res.statusCode).toBe(400);
  });
});

describe('signals', () => {
  it('redirects a moved page: 301 for documents, a redirect signal in page data', async () => {
    const doc = await app.inject({ url: '/catalog/old-amber-lamp' });
    expect(doc.statusCode).toBe(301);
    expect(doc.headers.location).toBe('/catalog/amber-lamp');
    expect(doc.headers.vary).toBe('X-Page-Data, X-Page-Data-Routes');
    const data = await app.inject({ url: '/catalog/old-amber-lamp', headers: pageData('root,catalog.$slug') });
    expect(data.statusCode).toBe(200);
    expect(data.json()).toEqual({
      kind: 'redirect',
      status: 301,
      location: '/catalog/amber-lamp',
      replace: false,
      reloadDocument: false,
    });
  });

  it.each(['/catalog/no-such-item', '/no/such/page'])('renders the not-found view with 404 for %s', async (url) => {
    const res = await app.inject({ url });
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('Page not found');
    expect(res.body).toContain('<title>Page not found</title>');
    // Inside the layout: the navigation is there.
    expect(res.body).toContain('aria-label="Main"');
  });

  it('puts a not-found signal in page data with status 404', async () => {
    const res = await app.inject({ url: '/catalog/no-such-item', headers: pageData('catalog.$slug') });
    expect(res.statusCode).toBe(404);
    expect(res.json().errors['catalog.$slug']).toEqual({ status: 404, statusText: 'Not Found', data: null });
  });
});

describe('server failures', () => {
  it.each([
    ['a loader', '/diagnostics/server-error'],
    ['a render', '/diagnostics/render-error'],
  ])('shows the server error screen with a digest and nothing internal when %s fails', async (_, url) => {
    const res = await app.inject({ url });
    expect(res.statusCode).toBe(500);
    expect(res.body).toContain(SERVER_ERROR_TEXT);
    expect(res.body).toMatch(/Digest: <code data-testid="digest">[0-9a-f]{32}<\/code>/);
    expect(res.body).not.toContain('secret-internal-detail');
    expect(res.body).not.toMatch(/at \w+ \(/);
  });

  it('sends the digest, and only the digest, in page data', async () => {
    const res = await app.inject({ url: '/diagnostics/server-error', headers: pageData('diagnostics.$failure') });
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('secret-internal-detail');
    const error = res.json().errors['diagnostics.$failure'];
    expect(error).toEqual({ status: 500, statusText: 'Internal Server Error', data: { digest: expect.any(String) } });
    expect(error.data.digest).toMatch(/^[0-9a-f]{32}$/);
  });

  it('has no diagnostics routes unless DIAGNOSTICS is on', async () => {
    const { app: plain } = await appForTest({ DIAGNOSTICS: '0' });
    const res = await plain.inject({ url: '/diagnostics/server-error' });
    expect(res.statusCode).toBe(404);
  });
});

describe('actions', () => {
  it('saves valid preferences: 303 to the page, cookie set, and the next page reads it', async () => {
    const res = await app.inject(form('displayName=Ada&pageSize=10&theme=dark', { origin: 'http://shop.test' }));
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/preferences?saved=1');
    const cookie = String(res.headers['set-cookie']).split(';')[0] ?? '';
    expect(cookie).toMatch(/^prefs=/);
    expect(String(res.headers['set-cookie'])).toMatch(/; HttpOnly; Secure; SameSite=Lax$/);
    const next = await app.inject({ url: '/preferences?saved=1', headers: { cookie } });
    expect(next.body).toContain('Your preferences were saved.');
    expect(next.body).toContain('Hello, Ada');
    expect(next.body).toContain('theme-dark');
  });

  it('sets the prefs cookie without Secure only from the development server (plain http on localhost)', async () => {
    const dev = await appForTest({}, { dev: true });
    const res = await dev.app.inject(form('pageSize=10&theme=dark', { origin: 'http://shop.test' }));
    expect(String(res.headers['set-cookie'])).toMatch(/^prefs=/);
    expect(String(res.headers['set-cookie'])).not.toMatch(/Secure/);
  });

  it('re-renders the form with 400 and the errors on invalid input, keeping what was typed', async () => {
    const res = await app.inject(form(`displayName=${'x'.repeat(41)}&pageSize=500&theme=pink`));
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Use at most 40 characters.');
    expect(res.body).toContain('Choose a whole number from 5 to 50.');
    expect(res.body).toContain('Choose light or dark.');
    expect(res.body).toContain('value="500"');
  });

  it('answers an action sent as page data with JSON: errors, or a redirect signal with the cookie', async () => {
    const bad = await app.inject({
      ...form('pageSize=0&theme=light'),
      headers: { ...form('').headers, ...pageData('preferences') },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().actionData.preferences.errors.pageSize).toBe('Choose a whole number from 5 to 50.');
    const good = await app.inject({
      ...form('pageSize=5&theme=light'),
      headers: { ...form('').headers, ...pageData('preferences') },
    });
    expect(good.json()).toMatchObject({ kind: 'redirect', location: '/preferences?saved=1' });
    expect(String(good.headers['set-cookie'])).toMatch(/^prefs=/);
  });

  it('accepts multipart forms', async () => {
    const boundary = 'XyZ';
    const part = (name: string, value: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const res = await app.inject({
      method: 'POST',
      url: '/preferences',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: `${part('pageSize', '7')}${part('theme', 'light')}--${boundary}--\r\n`,
    });
    expect(res.statusCode).toBe(303);
  });

  it.each([
    ['another origin', { origin: 'https://evil.example' }],
    ['an opaque origin', { origin: 'null' }],
    ['a cross-site fetch without Origin', { 'sec-fetch-site': 'cross-site' }],
  ])('refuses a POST from %s with 403', async (_, headers) => {
    const res = await app.inject({ ...form('pageSize=10&theme=light', headers), url: '/preferences' });
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain('cross-site POST refused');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('accepts a POST from a configured origin (a proxy in front)', async () => {
    const { app: proxied } = await appForTest({ ALLOWED_ORIGINS: 'https://www.shop.example' });
    const res = await proxied.inject({
      ...form('pageSize=10&theme=light', { origin: 'https://www.shop.example' }),
      url: '/preferences',
    });
    expect(res.statusCode).toBe(303);
  });

  it('refuses a body over the limit with 413 and an unknown body type with 415', async () => {
    const big = await app.inject({ ...form(`displayName=${'x'.repeat(70_000)}`), url: '/preferences' });
    expect(big.statusCode).toBe(413);
    expect(big.json().message).toMatch(/too large/i);
    const json = await app.inject({
      method: 'POST',
      url: '/preferences',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(json.statusCode).toBe(415);
  });
});

describe('security headers', () => {
  it('sends a CSP whose script nonce is on every script and differs per request', async () => {
    const nonces = [];
    for (let i = 0; i < 2; i++) {
      const res = await app.inject({ url: '/' });
      const csp = String(res.headers['content-security-policy']);
      const nonce = /script-src 'nonce-([0-9a-f]+)'(;|$)/.exec(csp)?.[1];
      expect(nonce).toBeDefined();
      expect(csp).toContain("connect-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toMatch(/style-src 'self' 'nonce-[0-9a-f]+'/);
      const scripts = res.body.match(/<script(?! type="application\/json")[^>]*>/g) ?? [];
      expect(scripts.length).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
      expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
      expect(res.headers['strict-transport-security']).toContain('max-age=');
      nonces.push(nonce);
    }
    expect(nonces[0]).not.toBe(nonces[1]);
  });
});

describe('security headers of page data', () => {
  it('allow nothing to run (JSON needs no nonces) and are otherwise those of a document', async () => {
    const doc = await app.inject({ url: '/catalog' });
    const data = await app.inject({ url: '/catalog', headers: pageData('root,catalog') });
    expect(data.headers['content-type']).toMatch(/^application\/json/);
    expect(data.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
    const rest = (headers: Record<string, unknown>) =>
      Object.fromEntries(
        ['x-content-type-options', 'x-frame-options', 'referrer-policy', 'strict-transport-security'].map((h) => [
          h,
          headers[h],
        ]),
      );
    expect(rest(data.headers)).toEqual(rest(doc.headers));
    expect(data.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('metrics', () => {
  it('counts page requests by kind and times them by route pattern', async () => {
    await app.inject({ url: '/catalog/amber-lamp' });
    await app.inject({ url: '/catalog/amber-lamp', headers: pageData('catalog.$slug') });
    const text = (await app.inject({ url: '/metrics' })).body;
    expect(text).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/catalog\/:slug",status_code="200"\} [2-9]/,
    );
    expect(text).toMatch(/page_requests_total\{kind="document",outcome="200"\} \d+/);
    expect(text).toMatch(/page_requests_total\{kind="page-data",outcome="200"\} \d+/);
    expect(text).toMatch(/ssr_render_seconds_count \d+/);
    expect(text).toMatch(
      new RegExp(`web_build_info\\{version="[^"]+",revision="[^"]+",node_version="${process.version}"\\} 1`),
    );
  });
});

describe('the routes found in src/app/routes/', () => {
  it('builds every folder, and refuses a loader file that exports no loader at startup', async () => {
    const { buildServerRoutes, serverHandlers, serverRouteTable } = await import(
      '../../../src/framework/server/server-routes.ts'
    );
    await expect(buildServerRoutes(serverRouteTable)).resolves.toHaveLength(1);
    const withoutLoader = new Map([...serverHandlers, ['catalog', {}]]);
    await expect(buildServerRoutes(serverRouteTable, undefined, withoutLoader)).rejects.toThrow(
      'routes/catalog/loader.server.ts exports no function "loader"',
    );
  });
});
