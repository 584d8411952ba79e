// Page GETs (documents, page data) answered ahead of Fastify (page-fast-path.ts), over a real loopback server: the
// same answer as Fastify's path gives (headers, nonces, body), the same request id, metrics and compression, and
// Fastify still answers everything else and every request while the service drains.
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp, type WebApp } from '../src/server/app.ts';
import { loadConfig } from '../src/server/config.ts';
import { fakeAssets, pageData } from './helpers.ts';

let web: WebApp;
let base: string;
/** Requests that went through Fastify's hooks (a page GET served ahead of Fastify never does). */
let throughFastify: string[] = [];

beforeAll(async () => {
  const env = {
    LOG_LEVEL: 'silent',
    DIAGNOSTICS: '1',
    SHED_EVENT_LOOP_DELAY_MS: '0',
    TRUSTED_PROXY_HOPS: '1',
    // The forwarded origin below is the site's own, so it may name the canonical URL (canonical-origin.ts).
    ALLOWED_ORIGINS: 'https://shop.test',
  };
  web = await buildApp(loadConfig(env), { assets: fakeAssets });
  web.app.addHook('onRequest', async (req) => {
    throughFastify.push(req.url);
  });
  await web.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(web.app.server.address() as AddressInfo).port}`;
});
afterAll(() => web.app.close());

const VOLATILE = new Set(['date', 'connection', 'keep-alive', 'x-request-id', 'content-security-policy']);
const withoutNonces = (text: string, nonces: string[]) => nonces.reduce((t, n) => t.replaceAll(n, 'NONCE'), text);
const noncesOf = (csp: string) => [...csp.matchAll(/'nonce-([0-9a-f]+)'/g)].map((m) => m[1] as string);

async function bothPaths(url: string, extraHeaders: Record<string, string> = {}) {
  // fetch asks for gzip on its own; inject asks for nothing.
  const headers = { 'accept-encoding': 'identity', ...extraHeaders };
  throughFastify = [];
  const fast = await fetch(`${base}${url}`, { headers });
  const fastBody = Buffer.from(await fast.arrayBuffer());
  const viaFastify = await web.app.inject({ url, headers: { host: new URL(base).host, ...headers } });
  return { fast, fastBody, viaFastify, fastifySaw: throughFastify.filter((u) => u === url).length };
}

describe('documents ahead of Fastify', () => {
  it('answers a document as Fastify does: status, headers, CSP with its own nonces, body', async () => {
    const { fast, fastBody, viaFastify, fastifySaw } = await bothPaths('/catalog?limit=5');
    expect(fastifySaw).toBe(1); // inject only: the fetch never reached Fastify
    expect(fast.status).toBe(viaFastify.statusCode);
    const fastHeaders = Object.fromEntries([...fast.headers].filter(([name]) => !VOLATILE.has(name)));
    const fastifyHeaders = Object.fromEntries(
      Object.entries(viaFastify.headers)
        .filter(([name]) => !VOLATILE.has(name))
        .map(([name, value]) => [name, String(value)]),
    );
    expect(fastHeaders).toEqual(fastifyHeaders);
    const fastCsp = fast.headers.get('content-security-policy') ?? '';
    const fastifyCsp = String(viaFastify.headers['content-security-policy']);
    const fastNonces = noncesOf(fastCsp);
    expect(fastNonces).toHaveLength(2);
    expect(withoutNonces(fastCsp, fastNonces)).toBe(withoutNonces(fastifyCsp, noncesOf(fastifyCsp)));
    const html = fastBody.toString();
    for (const tag of html.match(/<script(?! type="application\/json")[^>]*>/g) ?? []) {
      expect(tag).toContain(`nonce="${fastNonces[0]}"`);
    }
    // The page is the same but for its nonces.
    expect(withoutNonces(html, fastNonces)).toBe(withoutNonces(viaFastify.body, noncesOf(fastifyCsp)));
  });

  it('answers page data as Fastify does, JSON and JSON lines', async () => {
    for (const url of ['/catalog?limit=5', '/catalog/amber-lamp']) {
      const { fast, fastBody, viaFastify, fastifySaw } = await bothPaths(url, pageData());
      expect(fastifySaw).toBe(1);
      expect(fast.status).toBe(viaFastify.statusCode);
      expect(fast.headers.get('content-type')).toBe(viaFastify.headers['content-type']);
      expect(fast.headers.get('x-page-data')).toBe(viaFastify.headers['x-page-data']);
      expect(fast.headers.get('vary')).toBe(viaFastify.headers.vary);
      // No nonces in page data: the same policy on both paths, to the letter.
      expect(fast.headers.get('content-security-policy')).toBe(viaFastify.headers['content-security-policy']);
      expect(fastBody.toString()).toBe(viaFastify.body);
    }
    const stale = await fetch(`${base}/catalog`, { headers: pageData('no-such-route') });
    expect(await stale.json()).toMatchObject({ kind: 'redirect', reloadDocument: true });
    const bad = await fetch(`${base}/catalog`, { headers: pageData('not a route id!') });
    expect(bad.status).toBe(400);
  });

  it('takes the scheme and host from a trusted proxy as Fastify does (the canonical URL)', async () => {
    const headers = { 'x-forwarded-host': 'shop.test', 'x-forwarded-proto': 'https' };
    const { fastBody, viaFastify } = await bothPaths('/catalog', headers);
    expect(fastBody.toString()).toContain('<link rel="canonical" href="https://shop.test/catalog">');
    expect(viaFastify.body).toContain('<link rel="canonical" href="https://shop.test/catalog">');
  });

  it('echoes a well-formed X-Request-Id and makes one up for anything else', async () => {
    const kept = await fetch(`${base}/catalog`, { headers: { 'x-request-id': 'edge-42' } });
    expect(kept.headers.get('x-request-id')).toBe('edge-42');
    const replaced = await fetch(`${base}/catalog`, { headers: { 'x-request-id': 'bad id; drop' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('records the request by route pattern and status in the metrics', async () => {
    const line = (status: number) =>
      `http_request_duration_seconds_count{method="GET",route="/catalog/:slug",status_code="${status}"}`;
    const count = async (status: number) => {
      const text = await (await web.app.inject({ url: '/metrics' })).body;
      return Number(new RegExp(`${line(status).replace(/[{}]/g, '\\$&')} (\\d+)`).exec(text)?.[1] ?? 0);
    };
    const [found, missing] = [await count(200), await count(404)];
    await (await fetch(`${base}/catalog/amber-lamp`)).text();
    await (await fetch(`${base}/catalog/no-such-item`)).text();
    expect([await count(200), await count(404)]).toEqual([found + 1, missing + 1]);
  });

  it('compresses as the browser asks, as Fastify does', async () => {
    const res = await fetch(`${base}/catalog`, { headers: { 'accept-encoding': 'br' } });
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('vary')).toBe('X-Page-Data, X-Page-Data-Routes, Accept-Encoding');
    // fetch decodes it; the length sent is the compressed one.
    expect((await res.text()).endsWith('</html>')).toBe(true);
    const raw = await web.app.inject({ url: '/catalog', headers: { 'accept-encoding': 'br' } });
    expect(brotliDecompressSync(raw.rawPayload).toString()).toMatch(/<\/html>$/);
  });

  it('answers a loader failure with the digest screen, and a not-found with 404', async () => {
    const failed = await fetch(`${base}/diagnostics/server-error`);
    expect(failed.status).toBe(500);
    expect(await failed.text()).toMatch(/data-testid="digest"[^>]*>[0-9a-f]{32}</);
    expect((await fetch(`${base}/no/such/page`)).status).toBe(404);
  });

  it('makes a request its own logger only for a line it writes (one success in LOG_SAMPLE_EVERY is logged)', async () => {
    const quiet = await buildApp(loadConfig({ LOG_LEVEL: 'silent', LOG_SAMPLE_EVERY: '1000' }), { assets: fakeAssets });
    try {
      await quiet.app.listen({ port: 0, host: '127.0.0.1' });
      const child = vi.spyOn(quiet.app.log, 'child');
      const url = `http://127.0.0.1:${(quiet.app.server.address() as AddressInfo).port}/catalog`;
      for (let i = 0; i < 5; i++) await (await fetch(url)).text();
      // The first success of the service is the one sampled; the other four write nothing.
      expect(child).toHaveBeenCalledTimes(1);
      await (await fetch(`${url}/no-such-item`)).text();
      expect(child).toHaveBeenCalledTimes(2);
    } finally {
      await quiet.app.close();
    }
  });

  it('streams a document with deferred parts', async () => {
    const res = await fetch(`${base}/catalog/amber-lamp`);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(await res.text()).toMatch(/<\/html>$/);
  });
});

describe('hooks', () => {
  // Decision 009: a page GET served ahead of Fastify runs none of its hooks, so the fast path calls each hook's
  // function itself. A hook added to the pages (or the root instance) fails this test until the fast path does too.
  const MIRRORED_BY_THE_FAST_PATH = {
    onRequest: ['echoRequestId', 'applySecurityHeaders'],
    onSend: ['closeWhileDraining', 'compressResponse'],
    onResponse: ['recordRequestDuration', 'logRequest'],
  };

  it('Fastify runs no hook on a page GET that the fast path does not run too', async () => {
    const plain = await buildApp(loadConfig({ LOG_LEVEL: 'silent' }), { assets: fakeAssets });
    try {
      await plain.app.ready();
      const routes = plain.app.printRoutes({ commonPrefix: false, includeHooks: true });
      const pageRoute = routes.slice(routes.indexOf('* (GET'));
      const hooks = Object.fromEntries(
        [...pageRoute.matchAll(/• \((\w+)\) (\[.*\])/g)].map(([, name, list]) => [
          name,
          (JSON.parse(list as string) as string[]).map((fn) => fn.replace(/\(\)$/, '')),
        ]),
      );
      expect(hooks).toEqual(MIRRORED_BY_THE_FAST_PATH);
    } finally {
      await plain.app.close();
    }
  });
});

describe('what stays with Fastify', () => {
  it('HEAD, POST, encoded paths and every other route of its table', async () => {
    const routes = web.app
      .printRoutes({ commonPrefix: false })
      .split('\n')
      .map((line) => /── (\/\S*) \(/.exec(line)?.[1])
      .filter((path): path is string => path !== undefined && path !== '/*');
    expect(routes).toEqual(expect.arrayContaining(['/healthz', '/readyz', '/metrics']));
    const requests: Array<[string, RequestInit]> = [
      ...routes.map((path): [string, RequestInit] => [path.replace('*', 'x.js'), {}]),
      [
        '/preferences',
        { method: 'POST', body: 'theme=dark', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      ],
      ['/catalog', { method: 'HEAD' }],
      ['/caf%C3%A9', {}],
    ];
    for (const [url, init] of requests) {
      throughFastify = [];
      await (await fetch(`${base}${url}`, init)).arrayBuffer();
      expect(throughFastify, url).toEqual([url]);
    }
  });

  it('every request while the service drains, with Connection: close', async () => {
    web.readiness.draining = true;
    try {
      throughFastify = [];
      const res = await fetch(`${base}/catalog`);
      await res.text();
      expect(throughFastify).toEqual(['/catalog']);
      expect(res.headers.get('connection')).toBe('close');
    } finally {
      web.readiness.draining = false;
    }
  });
});
