// TUNNEL_PATH=off: the browser SDK posts straight to the DSN's intake (here a capture server on another origin).
// The CSP must let exactly that origin through in connect-src, and still block every other one.
import { type CaptureServer, type ServiceProcess, startCaptureServer } from '@app/test-kit';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, waitForHydration } from '../support/browser.ts';
import { startWeb } from '../support/web.ts';

let intake: CaptureServer;
let elsewhere: CaptureServer;
let web: ServiceProcess;
let browser: Browser;

beforeAll(async () => {
  [intake, elsewhere] = await Promise.all([startCaptureServer(), startCaptureServer()]);
  [web, browser] = await Promise.all([
    startWeb({ TUNNEL_PATH: 'off', SENTRY_DSN: intake.dsn(), SENTRY_TRACES_SAMPLE_RATE: '0', DIAGNOSTICS: '1' }),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await web?.kill();
  await Promise.all([intake?.close(), elsewhere?.close()]);
});

describe('direct-to-intake mode (TUNNEL_PATH=off)', () => {
  it("lets the browser SDK reach the DSN's origin and no other", async () => {
    const page = await browser.newPage();
    const blocked: string[] = [];
    await page.exposeFunction('reportViolation', (uri: string) => blocked.push(uri));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) =>
        (window as unknown as { reportViolation(uri: string): void }).reportViolation(event.blockedURI),
      );
    });
    const response = await page.goto(`${web.url}/catalog`);
    const csp = String(response?.headers()['content-security-policy']);
    expect(/connect-src ([^;]*)/.exec(csp)?.[1]).toBe(`'self' ${intake.url}`);
    await waitForHydration(page);

    const message = `direct mode ${Date.now()}`;
    await page.evaluate((text) => {
      setTimeout(() => {
        throw new Error(text);
      });
    }, message);
    const envelope = await intake.waitFor(
      (e) => e.items.some((item) => item.type === 'event' && item.payload.toString().includes(message)),
      20_000,
    );
    // Straight from the browser: no tunnel proxy or relay in between (they add forwarding headers).
    expect(String((envelope.header.sdk as { name?: string }).name)).toContain('react');
    expect(envelope.requestHeaders['x-forwarded-for']).toBeUndefined();
    expect(envelope.requestHeaders['x-sentry-forwarded-for']).toBeUndefined();

    // Any other origin stays blocked.
    const outcome = await page.evaluate(
      (url) =>
        fetch(url, { method: 'POST', body: 'x' }).then(
          () => 'sent',
          () => 'blocked',
        ),
      elsewhere.envelopeUrl('1'),
    );
    expect(outcome).toBe('blocked');
    await expect.poll(() => blocked.some((uri) => uri.startsWith(elsewhere.url)), { timeout: 5_000 }).toBe(true);
    expect(elsewhere.requestCount()).toBe(0);
    await page.close();
  });
});
