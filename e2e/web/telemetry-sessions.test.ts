// Release health in Chromium, as sessions arrive upstream through tunnel and relay: the specification's states
// ok, exited and crashed (§4). A page the user leaves ends its session as exited; an unhandled error crashes it, and
// so does the failure behind the client error screen (decision 014); a route's own error element does not.
import type { CapturedEnvelope } from '@app/test-kit';
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { browserTransaction, exceptionValue, fromBrowser, itemOf, telemetrySuite } from '../support/telemetry-stack.ts';

const suite = telemetrySuite({ DIAGNOSTICS: '1' });
const CLIENT_ERROR_TEXT =
  'Application error: a client-side exception has occurred (see the browser console for more information)';

interface ExceptionValue {
  value?: string;
  mechanism?: { type?: string; handled?: boolean };
}

interface SessionUpdate {
  sid: string;
  init: boolean;
  status: string;
  errors: number;
  attrs: { release: string; environment: string };
}
const sessionOf = (e: CapturedEnvelope) =>
  fromBrowser(e) ? (itemOf(e, 'session') as SessionUpdate | undefined) : undefined;
const waitForSession = async (match: (session: SessionUpdate) => boolean) =>
  sessionOf(
    await suite.stack.capture.waitFor(
      (e) => sessionOf(e) !== undefined && match(sessionOf(e) as SessionUpdate),
      20_000,
    ),
  ) as SessionUpdate;
const updatesOf = (sid: string) =>
  suite.stack.capture.envelopes.map(sessionOf).filter((s): s is SessionUpdate => s?.sid === sid);

/**
 * Leaves the page once its pageload transaction has arrived: a page left while that (large) send is still in flight
 * can lose its last sends, as the browser keeps only 64 KB of requests alive past a page's end.
 */
async function leave(page: Page): Promise<void> {
  await browserTransaction(suite.stack.capture, (t) => t.contexts.trace.op === 'pageload');
  await page.goto('about:blank');
}

// One page at a time, and each test reads only what arrived during it.
beforeEach(() => suite.stack.capture.clear());

describe('page sessions', () => {
  it('starts ok and ends exited when the user leaves a page without errors', async () => {
    const { page, seen } = await suite.open('/catalog');
    const started = await waitForSession((s) => s.init);
    expect(started).toMatchObject({ status: 'ok', errors: 0, attrs: { release: 'web@e2e', environment: 'e2e' } });

    await leave(page);
    const ended = await waitForSession((s) => s.sid === started.sid && s.status !== 'ok');
    expect(ended).toMatchObject({ status: 'exited', errors: 0 });
    expect(seen.errors).toEqual([]);
    await page.close();
  });

  it('is crashed by an unhandled error, and stays crashed when the user leaves', async () => {
    const { page } = await suite.open('/catalog');
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error('an unhandled failure (session test)');
      });
    });
    const crashed = await waitForSession((s) => s.status === 'crashed');
    expect(crashed.errors).toBe(1);

    await leave(page);
    await page.waitForTimeout(1_000);
    expect(updatesOf(crashed.sid).map((s) => s.status)).not.toContain('exited');
    expect(updatesOf(crashed.sid).map((s) => s.status)).not.toContain('unhandled');
    await page.close();
  });

  it('is crashed by the client error screen ("Application error"), whose failure is reported as unhandled', async () => {
    const { page } = await suite.open('/diagnostics/client-error');
    await page.click('text=Throw in the browser');
    await expect.poll(() => page.textContent('main h1')).toBe(CLIENT_ERROR_TEXT);
    const crashed = await waitForSession((s) => s.status === 'crashed');
    expect(crashed.errors).toBe(1);
    const event = await suite.stack.capture.waitFor(
      (e) => fromBrowser(e) && exceptionValue(itemOf(e, 'event')).includes('diagnostics: render failure'),
      20_000,
    );
    const values = (itemOf(event, 'event')?.exception as { values?: ExceptionValue[] } | undefined)?.values ?? [];
    // The thrown error (last) and React's component stack before it (its synthetic cause), both unhandled.
    expect(values.at(-1)?.mechanism).toMatchObject({ handled: false, type: 'auto.function.react.error_handler' });
    await leave(page);
    await page.waitForTimeout(1_000);
    expect(updatesOf(crashed.sid).map((s) => s.status)).not.toContain('exited');
    await page.close();
  });

  it('stays ok when a route shows its own error element: a failed deferred part, a loader failure', async () => {
    for (const [path, shown] of [
      ['/diagnostics/deferred-error', 'text=The deferred part failed.'],
      ['/diagnostics/server-error', '[data-testid="digest"]'],
    ] as const) {
      suite.stack.capture.clear();
      const { page } = await suite.open(path);
      await page.waitForSelector(shown);
      const started = await waitForSession((s) => s.init);
      await leave(page);
      const ended = await waitForSession((s) => s.sid === started.sid && s.status !== 'ok');
      expect(ended).toMatchObject({ status: 'exited' });
      expect(updatesOf(started.sid).map((s) => s.status)).not.toContain('crashed');
      await page.close();
    }
  });
});
