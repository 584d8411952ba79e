// The Content-Security-Policy the documents carry: nonces, where the page may connect, where it reports.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getTunnelPath } from '@sentry/core';
import helmet from 'helmet';
import { describe, expect, it } from 'vitest';
import {
  type CspNonces,
  freshNonces,
  pageHelmetOptions,
  type SecurityOptions,
  securityHeaders,
} from '../../../src/server/http/security-headers.ts';
import { loadSentryConfig } from '../../../src/server/telemetry/sentry-config.ts';
import { appForTest } from '../../with-web.ts';

/** The document's CSP as a map of directive → value. */
async function policyOf(env: Record<string, string>) {
  const { app } = await appForTest(env);
  const res = await app.inject({ method: 'GET', url: '/' });
  const directives = new Map(
    String(res.headers['content-security-policy'])
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .map(([name = '', ...values]) => [name, values.join(' ')]),
  );
  return { directives };
}

const DSN = 'https://pub123@o1.ingest.example.com/42';

describe('Content-Security-Policy: where the page may connect and report', () => {
  it.each([
    ['the tunnel (default)', { SENTRY_DSN: DSN }, "'self'"],
    [
      'direct mode: the DSN origin and nothing else',
      { SENTRY_DSN: DSN, TUNNEL_PATH: 'off' },
      "'self' https://o1.ingest.example.com",
    ],
    ['direct mode without a DSN', { TUNNEL_PATH: 'off' }, "'self'"],
  ])('connect-src with %s', async (_name, env, expected) => {
    const { directives } = await policyOf(env);
    expect(directives.get('connect-src')).toBe(expected);
  });

  it('reports violations to <TUNNEL_PATH>/r with the DSN (no secret, base64url), environment and release', async () => {
    const { directives } = await policyOf({
      SENTRY_DSN: 'http://pub:secret@127.0.0.1:9000/sub/7',
      SENTRY_ENVIRONMENT: 'staging',
      SENTRY_RELEASE: 'web@1.2.3',
    });
    const uri = directives.get('report-uri') as string;
    // Beside the tunnel path `tunnel: true` derives from the DSN, in names no filter list can match (decision 048).
    expect(uri.startsWith(`${getTunnelPath('http://pub@127.0.0.1:9000/sub/7')}/r?`)).toBe(true);
    expect(uri).not.toMatch(/sentry|dsn|security|127\.0\.0\.1/i);
    const query = Object.fromEntries(new URL(uri, 'http://x').searchParams);
    expect({ ...query, k: Buffer.from(query.k ?? '', 'base64url').toString() }).toEqual({
      k: 'http://pub@127.0.0.1:9000/sub/7',
      e: 'staging',
      r: 'web@1.2.3',
    });
    // Not report-to: Chromium would then ignore report-uri (see server/http/security-headers.ts).
    expect(directives.has('report-to')).toBe(false);
  });

  it("reports straight to Sentry's security endpoint for the DSN in direct mode", async () => {
    const { directives } = await policyOf({ SENTRY_DSN: DSN, TUNNEL_PATH: 'off' });
    expect(directives.get('report-uri')).toBe(
      'https://o1.ingest.example.com/api/42/security/?sentry_key=pub123&sentry_environment=production',
    );
  });

  it('reports nowhere without a DSN', async () => {
    const { directives } = await policyOf({});
    expect(directives.has('report-uri')).toBe(false);
  });
});

describe("the Node SDK's envelopes go through the relay the tunnel path forwards to", () => {
  it.each([
    [{ TUNNEL_TARGET: 'http://relay:3001', SENTRY_DSN: DSN }, `http://relay:3001${getTunnelPath(DSN)}`],
    [{ TUNNEL_TARGET: 'http://relay:3001' }, undefined],
    [{ TUNNEL_TARGET: 'http://relay:3001', TUNNEL_PATH: '/t' }, 'http://relay:3001/t'],
    [{ TUNNEL_TARGET: 'http://capture:8000/api/1/envelope/', SENTRY_DSN: DSN }, 'http://capture:8000/api/1/envelope/'],
    [{ TUNNEL_TARGET: 'http://relay:3001', TUNNEL_PATH: 'off' }, undefined],
    [{ SERVER_TUNNEL_URL: 'http://telemetry-relay:3001/monitoring' }, 'http://telemetry-relay:3001/monitoring'],
    [{}, undefined],
  ])('%j → %s', (env, expected) => {
    expect(loadSentryConfig(env)?.serverTunnelUrl).toBe(expected);
  });
});

describe('script-src: the nonce, nothing by host (issue 28.9)', () => {
  it("allows scripts by this response's nonce only (no 'self', no 'strict-dynamic')", async () => {
    const { app } = await appForTest({ SENTRY_DSN: DSN });
    const res = await app.inject({ url: '/catalog' });
    const policy = String(res.headers['content-security-policy']);
    const scriptSrc = /script-src ([^;]*)/.exec(policy)?.[1];
    const nonce = /'nonce-([0-9a-f]{32})'/.exec(scriptSrc ?? '')?.[1];
    expect(scriptSrc).toBe(`'nonce-${nonce}'`);
    // Every script that runs, and every module preloaded, carries the nonce (data scripts run nothing).
    const tags =
      res.body.match(/<script(?![^>]*type="application\/json")[^>]*>|<link rel="modulepreload"[^>]*>/g) ?? [];
    expect(tags.length).toBeGreaterThan(2);
    for (const tag of tags) expect(tag).toContain(`nonce="${nonce}"`);
  });
});

describe('CSP nonces', () => {
  it('are 128-bit hex, and no two are alike across blocks of drawn bytes', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1_000; i++) {
      const { script, style } = freshNonces();
      for (const nonce of [script, style]) {
        expect(nonce).toMatch(/^[0-9a-f]{32}$/);
        seen.add(nonce);
      }
    }
    expect(seen.size).toBe(2_000);
  });
});

/** The headers set on a response, in order (names as given). */
function recorded(set: (res: ServerResponse) => unknown): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  const res = { setHeader: (name: string, value: string) => headers.push([name, value]), removeHeader() {} };
  set(res as unknown as ServerResponse);
  return headers;
}

describe("security headers: helmet's, read once, the nonces put in per document", () => {
  const document = { headers: {} } as IncomingMessage;
  it.each<[string, SecurityOptions]>([
    ['production, tunnel', { dev: false, reportUrl: '/qpch63/r?k=aHR0cDovL3B1YkAxMjcuMC4wLjEvNw&e=production' }],
    ['direct mode', { dev: false, connectOrigins: ['https://o1.ingest.example.com'], reportUrl: 'https://x/api/1/' }],
    ['dev, no reports', { dev: true }],
  ])('are what helmet itself sets for the same nonces (%s)', (_name, options) => {
    const apply = securityHeaders(options);
    let nonces: CspNonces = { script: '', style: '' };
    const ours = recorded((res) => {
      nonces = apply(document, res);
    });
    const nonceOf = (kind: keyof CspNonces) => `'nonce-${nonces[kind]}'`;
    const middleware = helmet(pageHelmetOptions(options, nonceOf));
    const theirs = recorded((res) => middleware(document, res, () => {}));
    expect(ours).toEqual(theirs);
    expect(ours.find(([name]) => name === 'Content-Security-Policy')?.[1]).toContain(`'nonce-${nonces.script}'`);
  });

  it('differ in their nonces only from one document to the next', () => {
    const apply = securityHeaders({ dev: false });
    const [a, b] = [0, 1].map(() => recorded((res) => apply(document, res)));
    const policy = (headers: Array<[string, string]> = []) =>
      headers.find(([name]) => name === 'Content-Security-Policy')?.[1] ?? '';
    expect(policy(a)).not.toBe(policy(b));
    expect(policy(a).replace(/'nonce-[0-9a-f]{32}'/g, 'N')).toBe(policy(b).replace(/'nonce-[0-9a-f]{32}'/g, 'N'));
    expect(a?.filter(([name]) => name !== 'Content-Security-Policy')).toEqual(
      b?.filter(([name]) => name !== 'Content-Security-Policy'),
    );
  });
});
