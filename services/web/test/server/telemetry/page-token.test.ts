// The relay's page token as the web issues it: in the page's config, renewed on page-data answers, signed so the
// relay (service-kit's verifyPageToken, the same secret) accepts it; off without RELAY_PAGE_TOKEN_SECRET.
import { verifyPageToken } from '@app/service-kit/page-token';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/server/config.ts';
import { createPageTokens } from '../../../src/server/telemetry/page-tokens.ts';
import { appForTest, pageData } from '../../with-web.ts';

const SECRET = 'the-web-and-the-relay-share-this-secret';
const DSN = 'https://abc123@o1.ingest.sentry.io/42';
const verify = (token: string | undefined, nowSeconds = Date.now() / 1000) =>
  verifyPageToken(token, SECRET, 'abc123', Math.floor(nowSeconds), { skewSeconds: 0, maxTtlSeconds: 7200 });

describe('createPageTokens', () => {
  it('hands out one token until half its lifetime is gone, then a new one', () => {
    let now = 1_800_000_000_000;
    const token = createPageTokens(SECRET, DSN, 600, () => now);
    const first = token();
    expect(verify(first, now / 1000)).toEqual({ ok: true, expiresAt: 1_800_000_600 });
    now += 299_000;
    expect(token()).toBe(first);
    now += 1_000;
    const renewed = token();
    expect(renewed).not.toBe(first);
    expect(verify(renewed, now / 1000)).toEqual({ ok: true, expiresAt: 1_800_000_900 });
  });
});

describe('pages with RELAY_PAGE_TOKEN_SECRET', () => {
  const env = { SENTRY_DSN: DSN, RELAY_PAGE_TOKEN_SECRET: SECRET };
  const configOf = (html: string) =>
    JSON.parse(/<script type="application\/json" id="client-config">(.*?)<\/script>/.exec(html)?.[1] ?? 'null');

  it('puts a token the relay accepts into the page, and renews it on page data', async () => {
    const { app } = await appForTest(env);
    const page = await app.inject({ url: '/catalog' });
    const config = configOf(page.body);
    expect(verify(config.pageToken).ok).toBe(true);
    expect(config.styleNonce).toMatch(/^[0-9a-f]{32}$/);
    const data = await app.inject({ url: '/catalog', headers: pageData('catalog-list') });
    expect(verify(data.headers['x-page-token'] as string).ok).toBe(true);
  });

  it('issues none without the secret', async () => {
    const { app } = await appForTest({ SENTRY_DSN: DSN });
    expect(configOf((await app.inject({ url: '/catalog' })).body).pageToken).toBeUndefined();
    const data = await app.inject({ url: '/catalog', headers: pageData('catalog-list') });
    expect(data.headers['x-page-token']).toBeUndefined();
  });

  it.each([
    [{ RELAY_PAGE_TOKEN_SECRET: 'short' }, /RELAY_PAGE_TOKEN_SECRET must be at least 32 characters/],
    [{ RELAY_PAGE_TOKEN_SECRET: SECRET, PAGE_TOKEN_TTL_SECONDS: '5' }, /PAGE_TOKEN_TTL_SECONDS/],
  ])('stops at startup on %o', (bad, error) => {
    expect(() => loadConfig({ SENTRY_DSN: DSN, LOG_LEVEL: 'silent', ...bad })).toThrow(error);
  });
});

describe('the browser side', () => {
  it('keeps the newest token in the transport headers, and puts it in a beacon URL', async () => {
    const { setPageToken, transportHeaders, withPageToken } = await import(
      '../../../src/client/telemetry/page-token.ts'
    );
    expect(withPageToken('/qpch63')).toBe('/qpch63');
    setPageToken('1800000600.abc');
    setPageToken(null); // a page-data answer without one keeps the last
    expect(transportHeaders).toEqual({ 'X-Page-Token': '1800000600.abc' });
    expect(withPageToken('/qpch63')).toBe('/qpch63?page_token=1800000600.abc');
    expect(withPageToken('/qpch63?x=1')).toBe('/qpch63?x=1&page_token=1800000600.abc');
  });
});
