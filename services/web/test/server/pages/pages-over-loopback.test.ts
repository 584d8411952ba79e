// Page GETs over a real loopback server, through the front door and Fastify (the one page path since decision 020):
// what inject() does not show — the socket's framing (streaming, compression), request ids, CSP nonces that match the
// page's scripts, metrics by route pattern, and Connection: close while the service drains.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type WebApp } from '../../../src/server/app.ts';
import { loadConfig } from '../../../src/server/config.ts';
import { fakeAssets, pageData } from '../../with-web.ts';

let web: WebApp;
let base: string;

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
  await web.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(web.app.server.address() as AddressInfo).port}`;
});
afterAll(() => web.app.close());

const noncesOf = (csp: string) => [...csp.matchAll(/'nonce-([0-9a-f]+)'/g)].map((m) => m[1] as string);

describe('documents and page data over a loopback server', () => {
  it('answers a document whose scripts carry the nonce of its CSP, a new one per request', async () => {
    const nonceOf = async () => {
      const res = await fetch(`${base}/catalog?limit=5`, { headers: { 'accept-encoding': 'identity' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('vary')).toContain('X-Page-Data, X-Page-Data-Routes');
      const nonces = noncesOf(res.headers.get('content-security-policy') ?? '');
      expect(nonces).toHaveLength(2);
      const html = await res.text();
      for (const tag of html.match(/<script(?! type="application\/json")[^>]*>/g) ?? []) {
        expect(tag).toContain(`nonce="${nonces[0]}"`);
      }
      return nonces[0];
    };
    expect(await nonceOf()).not.toBe(await nonceOf());
  });

  it('answers page data, JSON and JSON lines, and refuses a malformed route list', async () => {
    for (const url of ['/catalog?limit=5', '/catalog/amber-lamp']) {
      const res = await fetch(`${base}${url}`, { headers: pageData() });
      expect([res.status, res.headers.get('x-page-data')]).toEqual([200, '1']);
      expect(res.headers.get('content-security-policy')).not.toContain('nonce-');
      expect((await res.text()).length).toBeGreaterThan(0);
    }
    const stale = await fetch(`${base}/catalog`, { headers: pageData('no-such-route') });
    expect(await stale.json()).toMatchObject({ kind: 'redirect', reloadDocument: true });
    const bad = await fetch(`${base}/catalog`, { headers: pageData('not a route id!') });
    expect(bad.status).toBe(400);
  });

  it('takes the scheme and host from a trusted proxy (the canonical URL)', async () => {
    const headers = { 'x-forwarded-host': 'shop.test', 'x-forwarded-proto': 'https' };
    const html = await (await fetch(`${base}/catalog`, { headers })).text();
    expect(html).toContain('<link rel="canonical" href="https://shop.test/catalog">');
  });

  it('echoes a well-formed X-Request-Id from the trusted edge and makes one up for anything else', async () => {
    const kept = await fetch(`${base}/catalog`, { headers: { 'x-request-id': 'edge-42' } });
    expect(kept.headers.get('x-request-id')).toBe('edge-42');
    const replaced = await fetch(`${base}/catalog`, { headers: { 'x-request-id': 'bad id; drop' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('records the request by route pattern and status in the metrics', async () => {
    const line = (status: number) =>
      `http_request_duration_seconds_count{method="GET",route="/catalog/:slug",status_code="${status}"}`;
    const count = async (status: number) => {
      const text = await (await fetch(`${base}/metrics`)).text();
      return Number(new RegExp(`${line(status).replace(/[{}]/g, '\\$&')} (\\d+)`).exec(text)?.[1] ?? 0);
    };
    const [found, missing] = [await count(200), await count(404)];
    await (await fetch(`${base}/catalog/amber-lamp`)).text();
    await (await fetch(`${base}/catalog/no-such-item`)).text();
    expect([await count(200), await count(404)]).toEqual([found + 1, missing + 1]);
  });

  it('compresses as the browser asks', async () => {
    const res = await fetch(`${base}/catalog`, { headers: { 'accept-encoding': 'br' } });
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('vary')).toBe('X-Page-Data, X-Page-Data-Routes, Accept-Encoding');
    expect((await res.text()).endsWith('</html>')).toBe(true);
  });

  it('answers a loader failure with the digest screen, and a not-found with 404', async () => {
    const failed = await fetch(`${base}/diagnostics/server-error`);
    expect(failed.status).toBe(500);
    expect(await failed.text()).toMatch(/data-testid="digest"[^>]*>[0-9a-f]{32}</);
    expect((await fetch(`${base}/no/such/page`)).status).toBe(404);
  });

  it('streams a document with deferred parts', async () => {
    const res = await fetch(`${base}/catalog/amber-lamp`);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(await res.text()).toMatch(/<\/html>$/);
  });

  it('closes the connection after each page while the service drains', async () => {
    web.readiness.draining = true;
    try {
      const res = await fetch(`${base}/catalog`);
      await res.text();
      expect([res.status, res.headers.get('connection')]).toEqual([200, 'close']);
    } finally {
      web.readiness.draining = false;
    }
  });
});
