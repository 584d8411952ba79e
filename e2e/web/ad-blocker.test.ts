// Reports that ad blockers cannot stop, proven with a real blocker (issue 38): uBlock Origin's own engine with the
// lists Debian's uBlock Origin ships, plus rules that exist for single sites today applied to all (test-kit's
// filter-lists.ts), in front of every request of the page (support/ad-blocker.ts). Each telemetry kind still arrives upstream (browser → tunnel → relay →
// capture), no first-party request is blocked; the same page posting straight to the intake loses its reports.

import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';
import { type CapturedEnvelope, type CaptureServer, type ServiceProcess, startCaptureServer } from '@app/test-kit';
import { SITE_RULES_APPLIED_TO_ALL } from '@app/test-kit/filter-lists';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AdBlocker, installAdBlocker } from '../support/ad-blocker.ts';
import { launchChromium, waitForHydration, waitForSentry } from '../support/browser.ts';
import {
  browserTransaction,
  exceptionValue,
  fromBrowser,
  itemOf,
  startTelemetryStack,
  type TelemetryStack,
} from '../support/telemetry-stack.ts';
import { startWeb } from '../support/web.ts';
import { sdkChunkPath } from '../support/web-assets.ts';

const EXTRA = [SITE_RULES_APPLIED_TO_ALL];
let stack: TelemetryStack;
let browser: Browser;
let context: BrowserContext;
let blocker: AdBlocker;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startTelemetryStack({ DIAGNOSTICS: '1' }), launchChromium()]);
  context = await browser.newContext();
  blocker = await installAdBlocker(context, EXTRA);
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await stack?.close();
});

async function open(path: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${stack.web.url}${path}`);
  await waitForHydration(page);
  return page;
}
/** The tunnel path the web derives from its DSN (no TUNNEL_PATH is set), as `tunnel: true` would. */
const tunnelPath = () => tunnelPathOf(stack.capture.dsn()) as string;
const arrived = (match: (e: CapturedEnvelope) => boolean) => stack.capture.waitFor(match, 20_000);
const sessionOf = (e: CapturedEnvelope) =>
  fromBrowser(e) ? (itemOf(e, 'session') as { sid: string; init: boolean; status: string } | undefined) : undefined;

describe('with uBlock Origin and its lists in front of the page', () => {
  // Each test reads only what arrived during it.
  beforeEach(() => stack.capture.clear());

  it('lets the pageload trace, the session, a navigation trace and a browser error through', async () => {
    const page = await open('/catalog');
    await waitForSentry(page);
    expect((await browserTransaction(stack.capture, (t) => t.contexts.trace.op === 'pageload')).transaction).toBe(
      '/catalog',
    );
    await arrived((e) => sessionOf(e)?.init === true);

    await page.evaluate(() => document.querySelector<HTMLAnchorElement>('a[href="/catalog/amber-lamp"]')?.click());
    const navigation = await browserTransaction(stack.capture, (t) => t.contexts.trace.op === 'navigation');
    expect(navigation.transaction).toBe('/catalog/:slug');

    const message = `blocked? ${Date.now()}`;
    await page.evaluate((text) => {
      setTimeout(() => {
        throw new Error(text);
      });
    }, message);
    await arrived((e) => fromBrowser(e) && exceptionValue(itemOf(e, 'event')).includes(message));
    await page.close();
  });

  it('lets user feedback through', async () => {
    const page = await open('/');
    const trigger = page.locator('#sentry-feedback .widget__actor');
    await trigger.click({ timeout: 15_000 });
    await page.locator('#sentry-feedback textarea[name="message"]').fill('Sent past an ad blocker (e2e).');
    await page.locator('#sentry-feedback .btn--primary').click();
    const feedback = itemOf(await arrived((e) => itemOf(e, 'feedback') !== undefined), 'feedback') as {
      contexts: { feedback: { message: string } };
    };
    expect(feedback.contexts.feedback.message).toBe('Sent past an ad blocker (e2e).');
    await page.close();
  });

  it('lets a CSP violation report through', async () => {
    const page = await open('/catalog');
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__injected = true';
      document.head.append(script);
    });
    await arrived((e) => e.items.some((item) => item.type === 'raw_security'));
    await page.close();
  });

  it('lets the beacons of a page hidden, then left, before the SDK arrived through', async () => {
    const page = await context.newPage();
    // Held, so the page is certainly hidden and left before the SDK is there.
    await page.route(
      (url) => url.pathname === sdkChunkPath(),
      () => undefined,
    );
    await page.goto(`${stack.web.url}/catalog`);
    await waitForHydration(page);
    // Hidden (the visitor switched tabs): the session goes in a keep-alive request, which the blocker sees as `ping`.
    const tunnel = `${stack.web.url}${tunnelPath()}`;
    const beacon = page.waitForRequest((request) => request.url() === tunnel && request.resourceType() === 'ping');
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      document.dispatchEvent(new Event('visibilitychange', { bubbles: true })); // as the browser fires it
    });
    // This page's session (another test's page may still have one in flight).
    const sid = /"sid":"(\w+)"/.exec((await beacon).postData() ?? '')?.[1];
    await arrived((e) => sessionOf(e)?.sid === sid && sessionOf(e)?.init === true);
    expect(blocker.passed).toContainEqual({ url: tunnel, type: 'ping' });
    // Left: the page-hide beacon. Sent after the document is gone, it never reaches Playwright's routing, so the
    // blocker's verdict on the same request is asked directly.
    await page.goto('about:blank');
    await arrived((e) => sessionOf(e)?.sid === sid && sessionOf(e)?.status === 'exited');
    expect(blocker.blocker.match(tunnel, 'ping', `${stack.web.url}/catalog`)).toBeUndefined();
    await page.close();
  });

  it('blocked no request of the pages, first-party or not', () => {
    expect(blocker.passed.length).toBeGreaterThan(10);
    expect(blocker.blocked).toEqual([]);
  });
});

describe('control: the same page posting straight to the intake (TUNNEL_PATH=off)', () => {
  let intake: CaptureServer;
  let web: ServiceProcess;
  beforeAll(async () => {
    intake = await startCaptureServer();
    web = await startWeb({ TUNNEL_PATH: 'off', SENTRY_DSN: intake.dsn(), SENTRY_TRACES_SAMPLE_RATE: '1' });
  });
  afterAll(async () => {
    await web?.kill();
    await intake?.close();
  });

  it('loses its reports: the lists block the intake URL', async () => {
    const page = await context.newPage();
    await page.goto(`${web.url}/catalog`);
    await waitForHydration(page);
    await waitForSentry(page);
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error('direct to the intake');
      });
    });
    const toIntake = () => blocker.blocked.filter((r) => r.url.startsWith(intake.url));
    await expect.poll(() => toIntake().length, { timeout: 15_000 }).toBeGreaterThan(0);
    // The SDK's intake URL (`/api/1/envelope/?sentry_version=7&sentry_key=…`): EasyPrivacy's generic rules.
    for (const request of toIntake())
      expect(request).toMatchObject({
        rule: expect.stringMatching(/^\/\?sentry_(version|key)=$/),
        list: 'easyprivacy',
      });
    // Only the server's own envelopes reached the intake; nothing the browser sent. Checked while the page is open:
    // what a closing page sends in keep-alive requests never reaches Playwright's routing.
    expect(intake.envelopes.filter(fromBrowser)).toEqual([]);
    await page.close();
  });
});
