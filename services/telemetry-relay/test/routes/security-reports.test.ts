// Browsers' CSP reports through the relay's /security route, each arriving upstream as a raw_security item.
import { eventually, post } from '@app/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { withRelay } from '../with-relay.ts';

// Small event items (4 KiB) to test the bound cheaply; one trusted proxy, as behind the web service's tunnel proxy.
const under = withRelay({ MAX_EVENT_ITEM_BYTES: '4096', TRUSTED_PROXY_HOPS: '1' });
afterEach(() => under.capture.clear());

const violation = (blocked: string) => ({
  'document-uri': 'https://shop.example.com/catalog',
  'violated-directive': 'script-src-elem',
  'effective-directive': 'script-src-elem',
  'blocked-uri': blocked,
  disposition: 'enforce',
});
const reportsUrl = (query: Record<string, string>) =>
  `${under.relay.url}/monitoring/security?${new URLSearchParams(query)}`;

describe('CSP reports: POST <TUNNEL_PATH>/security', () => {
  it('wraps a report-uri report as a raw_security item for the DSN, with release, environment and client', async () => {
    const body = JSON.stringify({ 'csp-report': violation('inline') });
    const response = await post(
      reportsUrl({ dsn: under.dsn, sentry_release: 'web@1.0.0', sentry_environment: 'staging' }),
      body,
      {
        'content-type': 'application/csp-report',
        'x-forwarded-for': '198.51.100.9',
        'user-agent': 'Chromium',
      },
    );
    expect(response.status).toBe(200);
    const arrived = await under.capture.waitFor(() => true);
    expect(arrived.projectId).toBe('42');
    expect(arrived.header).toEqual({ dsn: under.dsn });
    expect(arrived.items).toHaveLength(1);
    const [item] = arrived.items;
    expect(item?.header).toEqual({
      type: 'raw_security',
      content_type: 'application/csp-report',
      sentry_release: 'web@1.0.0',
      sentry_environment: 'staging',
      length: Buffer.byteLength(body),
    });
    expect(item?.payload.toString()).toBe(body);
    expect(arrived.requestHeaders).toMatchObject({
      'x-sentry-forwarded-for': '198.51.100.9',
      'user-agent': 'Chromium',
    });
  });

  it('splits a Reporting API batch into one item per CSP violation, leaving other report types out', async () => {
    const batch = [
      { type: 'csp-violation', age: 1, url: 'https://shop.example.com/', body: violation('inline') },
      { type: 'deprecation', age: 1, url: 'https://shop.example.com/', body: { id: 'x' } },
      { type: 'csp-violation', age: 2, url: 'https://shop.example.com/', body: violation('https://evil.example') },
    ];
    const response = await post(reportsUrl({ dsn: under.dsn }), JSON.stringify(batch), {
      'content-type': 'application/reports+json',
    });
    expect(response.status).toBe(200);
    const arrived = await under.capture.waitFor(() => true);
    expect(arrived.items.map((item) => item.type)).toEqual(['raw_security', 'raw_security']);
    expect(arrived.items.map((item) => JSON.parse(item.payload.toString()).body['blocked-uri'])).toEqual([
      'inline',
      'https://evil.example',
    ]);
  });

  it.each([
    ['no DSN', {}, 'application/csp-report', '{"csp-report":{}}', 400, 'missing_dsn'],
    [
      'a DSN not allowed',
      { dsn: 'http://other@127.0.0.1:9/1' },
      'application/csp-report',
      '{}',
      403,
      'dsn_not_allowed',
    ],
    ['a body that is not a report type', { dsn: 'DSN' }, 'text/plain', '{}', 415, 'unsupported_type'],
    ['a body that is not JSON', { dsn: 'DSN' }, 'application/csp-report', '{nope', 400, 'malformed'],
    ['a report that is not an object', { dsn: 'DSN' }, 'application/csp-report', '[1]', 400, 'malformed'],
    ['a batch without a CSP violation', { dsn: 'DSN' }, 'application/reports+json', '[{"type":"x"}]', 400, 'malformed'],
    [
      'a report nested too deep',
      { dsn: 'DSN' },
      'application/json',
      `${'['.repeat(200)}${']'.repeat(200)}`,
      400,
      'malformed',
    ],
    [
      'a body larger than MAX_EVENT_ITEM_BYTES',
      { dsn: 'DSN' },
      'application/json',
      `"${'x'.repeat(5000)}"`,
      413,
      'too_large',
    ],
    ['an empty body', { dsn: 'DSN' }, 'application/csp-report', '', 400, 'empty'],
  ])('refuses %s with a 4xx saying what was wrong', async (_name, query, contentType, body, status, code) => {
    const resolved = Object.fromEntries(Object.entries(query).map(([k, v]) => [k, v === 'DSN' ? under.dsn : v]));
    const response = await post(reportsUrl(resolved), body, { 'content-type': contentType });
    expect(response.status).toBe(status);
    expect(response.json.error).toBe(code);
    expect(String(response.json.detail).length).toBeGreaterThan(10);
    expect(under.capture.envelopes).toHaveLength(0);
  });

  it('counts reports like envelopes: received, accepted by project, rejected by reason', async () => {
    await post(reportsUrl({ dsn: under.dsn }), '{"csp-report":{}}', { 'content-type': 'application/csp-report' });
    await post(reportsUrl({}), '{}', { 'content-type': 'application/csp-report' });
    const text = await (await fetch(`${under.relay.url}/metrics`)).text();
    expect(text).toMatch(/relay_envelopes_accepted_total\{project="42"\} [1-9]/);
    expect(text).toMatch(/relay_envelopes_rejected_total\{reason="missing_dsn"\} [1-9]/);
  });

  it("honours upstream's rate limit on the security category with 429 and Sentry's headers", async () => {
    under.capture.setBehaviour({ kind: 'rate-limit', retryAfterSeconds: 30, limits: '30:security:key:quota' });
    const report = () =>
      post(reportsUrl({ dsn: under.dsn }), '{"csp-report":{}}', { 'content-type': 'application/csp-report' });
    expect((await report()).status).toBe(200); // accepted before upstream answered
    await eventually(async () => (await report()).status === 429, 5_000);
    const limited = await report();
    expect(limited.json.error).toBe('rate_limited');
    expect(limited.headers.get('x-sentry-rate-limits')).toMatch(/security/);
  });
});
