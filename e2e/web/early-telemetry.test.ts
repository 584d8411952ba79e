// A page left before the lazy Sentry SDK arrives loses nothing (issue 28): the SDK is asked for at the page's first
// error, and a page hidden before it is there sends what waited (errors with their breadcrumbs, the session) in
// keep-alive requests through the tunnel. Checked upstream (browser → tunnel → relay → capture server), with the
// SDK's chunk blocked, so "before the SDK" is certain.
import type { CapturedEnvelope } from '@app/test-kit';
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { waitForHydration, waitForSentry } from '../support/browser.ts';
import { exceptionValue, fromBrowser, itemOf, telemetrySuite } from '../support/telemetry-stack.ts';
import { sdkChunkPath } from '../support/web-assets.ts';

/** The lazily loaded SDK's chunk (named by content hash alone: found through the build's manifest). */
const SDK_CHUNK = (url: URL) => url.pathname === sdkChunkPath();
const CLIENT_ERROR_TEXT =
  'Application error: a client-side exception has occurred (see the browser console for more information)';

const suite = telemetrySuite({ DIAGNOSTICS: '1' });
beforeEach(() => suite.stack.capture.clear());

interface Session {
  sid: string;
  init: boolean;
  status: string;
  errors: number;
  attrs: { release: string; environment: string };
}
const sessionOf = (e: CapturedEnvelope) => (fromBrowser(e) ? (itemOf(e, 'session') as Session | undefined) : undefined);
const sessions = () => suite.stack.capture.envelopes.map(sessionOf).filter((s): s is Session => s !== undefined);

/**
 * A page whose SDK chunk never arrives (blocked, as an ad blocker would; `sdkAsked` tells whether the page asked for
 * it). Blocked rather than held by page.route: Playwright's interception drops a closed page's keep-alive requests.
 */
async function pageWithoutSdk(): Promise<{ page: Page; sdkAsked: () => boolean }> {
  const page = await suite.browser.newPage();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setBlockedURLs', { urls: [`*${sdkChunkPath()}`] });
  let asked = false;
  page.on('request', (request) => {
    if (SDK_CHUNK(new URL(request.url()))) asked = true;
  });
  // A console line while the document parses: a breadcrumb from before any module ran.
  await page.addInitScript(() =>
    document.addEventListener('DOMContentLoaded', () => console.log('breadcrumb: the document was parsed')),
  );
  return { page, sdkAsked: () => asked };
}

describe('before the Sentry SDK has arrived', () => {
  it('sends an error thrown during hydration, with its breadcrumbs, and the crashed session, from a page closed 200 ms later', async () => {
    const { page, sdkAsked } = await pageWithoutSdk();
    await page.goto(`${suite.stack.web.url}/diagnostics/hydration-error`);
    await expect.poll(() => page.textContent('main h1'), { timeout: 15_000 }).toBe(CLIENT_ERROR_TEXT);
    // Asked for at the error (as Sentry's Loader Script does), not after the page's load at idle time.
    expect(sdkAsked()).toBe(true);
    await page.waitForTimeout(200);
    await page.close();

    const envelope = await suite.stack.capture.waitFor(
      (e) => fromBrowser(e) && exceptionValue(itemOf(e, 'event')).includes('diagnostics: hydration failure'),
      20_000,
    );
    const event = itemOf(envelope, 'event') as {
      release: string;
      exception: { values: Array<{ mechanism: { handled: boolean }; stacktrace?: { frames: unknown[] } }> };
      breadcrumbs: Array<{ category: string; message?: string }>;
    };
    expect(event.release).toBe('web@e2e');
    expect(event.exception.values.at(-1)?.mechanism.handled).toBe(false);
    expect(event.exception.values.at(-1)?.stacktrace?.frames.length).toBeGreaterThan(0);
    expect(event.breadcrumbs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ category: 'console', message: 'breadcrumb: the document was parsed' }),
        expect.objectContaining({ category: 'console', message: expect.stringContaining('hydration failure') }),
      ]),
    );
    const session = await suite.stack.capture.waitFor((e) => sessionOf(e)?.init === true, 20_000);
    expect(sessionOf(session)).toMatchObject({
      status: 'crashed',
      errors: 1,
      attrs: { release: 'web@e2e', environment: 'e2e' },
    });
    // Nothing more to say when the page is also hidden: one update, never exited.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(sessions().filter((s) => s.sid === sessionOf(session)?.sid)).toHaveLength(1);
  });

  it('counts a visit left without errors as a session that started and exited', async () => {
    const { page } = await pageWithoutSdk();
    await page.goto(`${suite.stack.web.url}/catalog`);
    await waitForHydration(page);
    await page.close();
    const started = sessionOf(await suite.stack.capture.waitFor((e) => sessionOf(e)?.init === true, 20_000));
    expect(started?.errors).toBe(0);
    const updates = () => sessions().filter((s) => s.sid === started?.sid);
    await expect.poll(() => updates().map((s) => s.status), { timeout: 20_000 }).toContain('exited');
    expect(updates().map((s) => s.status)).not.toContain('crashed');
    expect(updates().filter((s) => s.init)).toHaveLength(1);
  });

  it('lets the SDK continue the session a hidden tab sent, when the tab comes back: one visit, one session', async () => {
    const page = await suite.browser.newPage();
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(SDK_CHUNK, async (route) => {
      await released;
      await route.continue();
    });
    await page.goto(`${suite.stack.web.url}/catalog`);
    await waitForHydration(page);
    // The tab is hidden (the visitor switched tabs) and shown again before the SDK is there.
    const setVisibility = (state: 'hidden' | 'visible') =>
      page.evaluate((value) => {
        Object.defineProperty(document, 'visibilityState', { value, configurable: true });
        document.dispatchEvent(new Event('visibilitychange', { bubbles: true })); // as the browser fires it
      }, state);
    await setVisibility('hidden');
    const early = sessionOf(await suite.stack.capture.waitFor((e) => sessionOf(e)?.init === true, 20_000));
    expect(early).toMatchObject({ status: 'ok', errors: 0 });
    await setVisibility('visible');

    release();
    await waitForSentry(page);
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error('after the SDK took over the session');
      });
    });
    await expect
      .poll(() => sessions().filter((s) => s.sid === early?.sid && s.status === 'crashed'), { timeout: 20_000 })
      .toHaveLength(1);
    // The SDK's own updates carry the early session's id, and none of them starts a session of its own.
    expect(sessions().filter((s) => s.init)).toHaveLength(1);
    expect(new Set(sessions().map((s) => s.sid))).toEqual(new Set([early?.sid]));
    await page.close();
  });
});
