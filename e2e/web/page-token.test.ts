// The page token end to end (issue 40): the web issues it into the page, the real browser SDK in Chromium sends it
// as X-Page-Token on every tunnel request, the real relay (same secret) accepts the page's envelopes and refuses one
// forged, expired or without a token; page-data answers renew it.
import { signPageToken } from '@app/service-kit/page-token';
import { describe, expect, it } from 'vitest';
import { sendSentinel, telemetrySuite } from '../support/telemetry-stack.ts';

const SECRET = 'e2e-secret-shared-by-web-and-relay-0123456789';
const suite = telemetrySuite({ RELAY_PAGE_TOKEN_SECRET: SECRET }, { PAGE_TOKEN_SECRET: SECRET });

describe('the page token with the browser SDK in Chromium', () => {
  it("sends the page's token with its envelopes, which arrive; renews it on navigation", async () => {
    const { page } = await suite.open('/catalog');
    const tunnel = await page.evaluate(
      () => JSON.parse(document.getElementById('client-config')?.textContent ?? '{}').sentry.tunnel as string,
    );
    const sent: Array<string | undefined> = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === tunnel) {
        sent.push(request.headers()['x-page-token']);
      }
    });
    await sendSentinel(suite.stack, page, 'sentinel with a page token');
    // Playwright reports the request over CDP, which a loaded machine can deliver after the capture server got it.
    await expect.poll(() => sent.length).toBeGreaterThan(0);
    expect(sent.every((token) => /^\d+\.[\w-]{43}$/.test(token ?? ''))).toBe(true);

    const renewed = page.waitForResponse((response) => response.request().headers()['x-page-data'] === '1');
    await page.click('a[rel="next"]');
    expect((await renewed).headers()['x-page-token']).toMatch(/^\d+\.[\w-]{43}$/);
    await sendSentinel(suite.stack, page, 'sentinel after a navigation');
    await page.close();
  });

  it.each([
    [
      'a forged',
      () => signPageToken('a-forger-guessing-the-secret-0123456789', 'public', Math.floor(Date.now() / 1000) + 600),
      'page_token_invalid',
    ],
    ['an expired', () => signPageToken(SECRET, 'public', Math.floor(Date.now() / 1000) - 3600), 'page_token_expired'],
    ['no', () => undefined, 'page_token_missing'],
  ])('refuses an envelope with %s token, through the web and the relay', async (_name, token, error) => {
    const { stack } = suite;
    const page = await suite.browser.newPage();
    await page.goto(`${stack.web.url}/catalog`);
    const path = await page.evaluate(
      () => JSON.parse(document.getElementById('client-config')?.textContent ?? '{}').sentry.tunnel as string,
    );
    await page.close();
    const value = token();
    const body = [JSON.stringify({ dsn: stack.capture.dsn() }), '{"type":"event"}', '{"message":"forged"}'].join('\n');
    const answer = await fetch(`${stack.web.url}${path}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'text/plain;charset=UTF-8', ...(value ? { 'x-page-token': value } : {}) },
    });
    expect(answer.status).toBe(403);
    expect(((await answer.json()) as { error: string }).error).toBe(error);
  });
});
