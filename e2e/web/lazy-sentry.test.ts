// The Sentry browser SDK loads after hydration, off the critical path. What must not be lost meanwhile, checked
// where it matters, upstream: browser → the web's tunnel path → the telemetry relay → a capture server (Sentry).
// The SDK's chunk is held back by the test, so "before the SDK arrives" is certain, not a race.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type CapturedEnvelope,
  type CaptureServer,
  type ServiceProcess,
  spawnService,
  startCaptureServer,
} from '@app/test-kit';
import type { Browser, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, waitForHydration, waitForSentry, watchConsole } from '../support/browser.ts';
import { startWeb } from '../support/web.ts';

const relayEntry = fileURLToPath(new URL('../../services/telemetry-relay/src/main.ts', import.meta.url));
const SDK_CHUNK = /\/assets\/sentry-sdk-[\w-]+\.js$/;

let capture: CaptureServer;
let relay: ServiceProcess;
let web: ServiceProcess;
let browser: Browser;
let spoolDir: string;

beforeAll(async () => {
  capture = await startCaptureServer();
  spoolDir = mkdtempSync(join(tmpdir(), 'lazy-sentry-spool-'));
  [relay, browser] = await Promise.all([
    spawnService(relayEntry, { env: { ALLOWED_DSNS: capture.dsn(), SPOOL_DIR: spoolDir, SPOOL_MODE: 'fast' } }),
    launchChromium(),
  ]);
  web = await startWeb({
    SENTRY_DSN: capture.dsn(),
    SENTRY_TRACES_SAMPLE_RATE: '1',
    // Sessions need a release (the SDK drops them without one).
    SENTRY_RELEASE: 'web@lazy-sentry',
    TUNNEL_TARGET: relay.url,
  });
});
afterAll(async () => {
  await browser?.close();
  await web?.kill();
  await relay?.kill();
  await capture?.close();
  if (spoolDir) rmSync(spoolDir, { recursive: true, force: true });
});

const itemOf = (envelope: CapturedEnvelope, type: string) =>
  envelope.items.find((item) => item.type === type)?.json as Record<string, unknown> | undefined;
/** From the browser SDK, through the tunnel path (X-Forwarded-For) and then the relay (X-Sentry-Forwarded-For). */
const viaTunnelAndRelay = (envelope: CapturedEnvelope) =>
  envelope.requestHeaders['x-sentry-forwarded-for'] !== undefined &&
  String((envelope.header.sdk as { name?: string } | undefined)?.name).includes('react');
interface ExceptionValue {
  value?: string;
  mechanism?: { type?: string; handled?: boolean };
}
const exceptionsOf = (envelope: CapturedEnvelope) =>
  (itemOf(envelope, 'event')?.exception as { values?: ExceptionValue[] } | undefined)?.values ?? [];
const eventsWith = (text: string) =>
  capture.envelopes.filter((e) => viaTunnelAndRelay(e) && exceptionsOf(e).some((v) => v.value?.includes(text)));

/** Opens `path` with the SDK's chunk held until `release()`; resolves once the page is hydrated. */
async function openWithSdkHeld(path: string) {
  const page = await browser.newPage();
  const seen = watchConsole(page);
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let requestedAt = 0;
  await page.route(SDK_CHUNK, async (route: Route) => {
    requestedAt = await page.evaluate(() => performance.timeOrigin + performance.now());
    await released;
    await route.continue();
  });
  await page.goto(`${web.url}${path}`);
  await waitForHydration(page);
  await expect.poll(() => requestedAt, { timeout: 10_000 }).toBeGreaterThan(0);
  return { page, seen, release, requestedAt: () => requestedAt };
}

describe('the Sentry SDK loaded after hydration', () => {
  it('reports an error and a rejection thrown before it arrived, once each, as uncaught', async () => {
    const { page, release } = await openWithSdkHeld('/catalog');
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error('early: thrown before the SDK');
      });
      void Promise.reject(new Error('early: rejected before the SDK'));
    });
    await page.waitForTimeout(300);
    expect(capture.envelopes.filter(viaTunnelAndRelay)).toEqual([]);
    release();
    await waitForSentry(page);
    const thrown = await capture.waitFor(
      (e) => viaTunnelAndRelay(e) && exceptionsOf(e).some((v) => v.value === 'early: thrown before the SDK'),
      20_000,
    );
    const rejected = await capture.waitFor(
      (e) => viaTunnelAndRelay(e) && exceptionsOf(e).some((v) => v.value === 'early: rejected before the SDK'),
      20_000,
    );
    expect(exceptionsOf(thrown)[0]?.mechanism).toMatchObject({
      type: 'auto.browser.global_handlers.onerror',
      handled: false,
    });
    expect(exceptionsOf(rejected)[0]?.mechanism).toMatchObject({
      type: 'auto.browser.global_handlers.onunhandledrejection',
      handled: false,
    });
    // An error after the SDK is there goes straight to it, and is not replayed again from the early queue.
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error('later: thrown with the SDK there');
      });
    });
    await capture.waitFor((e) => eventsWith('later: thrown with the SDK there').includes(e), 20_000);
    await page.waitForTimeout(1_500);
    expect(eventsWith('early: thrown before the SDK')).toHaveLength(1);
    expect(eventsWith('early: rejected before the SDK')).toHaveLength(1);
    expect(eventsWith('later: thrown with the SDK there')).toHaveLength(1);
    await page.close();
  });

  it('still sends a pageload transaction that covers the whole load, from navigation start', async () => {
    const { page, release, requestedAt } = await openWithSdkHeld('/catalog/amber-lamp');
    const [timeOrigin, hydratedAt, serverTrace] = await Promise.all([
      page.evaluate(() => performance.timeOrigin),
      page.evaluate(() => performance.timeOrigin + (performance.getEntriesByName('app:hydrated')[0]?.startTime ?? 0)),
      page.getAttribute('meta[name="sentry-trace"]', 'content'),
    ]);
    await page.waitForTimeout(500);
    release();
    const envelope = await capture.waitFor(
      (e) => viaTunnelAndRelay(e) && itemOf(e, 'transaction')?.transaction === '/catalog/:slug',
      20_000,
    );
    const transaction = itemOf(envelope, 'transaction') as {
      start_timestamp: number;
      timestamp: number;
      contexts: { trace: { op: string; trace_id: string } };
      spans: Array<{ op?: string; description?: string; start_timestamp: number }>;
      measurements?: Record<string, { value: number }>;
    };
    expect(transaction.contexts.trace.op).toBe('pageload');
    expect(transaction.contexts.trace.trace_id).toBe(serverTrace?.split('-')[0]);
    // It starts at navigation start, long before the SDK was even requested...
    expect(Math.abs(transaction.start_timestamp * 1000 - timeOrigin)).toBeLessThan(20);
    expect(transaction.start_timestamp * 1000).toBeLessThan(requestedAt() - 500);
    // ...and holds what happened before the SDK: the document's timing, the entry script, the paints.
    const ops = transaction.spans.map((span) => span.op);
    expect(ops).toEqual(expect.arrayContaining(['browser.request', 'browser.response']));
    expect(transaction.spans.some((s) => s.op === 'resource.script' && s.description?.includes('/assets/entry-'))).toBe(
      true,
    );
    expect(transaction.spans.some((s) => s.start_timestamp * 1000 < hydratedAt)).toBe(true);
    expect(Object.keys(transaction.measurements ?? {})).toEqual(expect.arrayContaining(['fcp', 'ttfb']));
    await page.close();
  });

  it('keeps a hydrated page free of console errors and sends its session', async () => {
    const { page, seen, release } = await openWithSdkHeld('/');
    release();
    await waitForSentry(page);
    await capture.waitFor((e) => viaTunnelAndRelay(e) && e.items.some((item) => item.type === 'session'), 20_000);
    expect(seen.errors).toEqual([]);
    await page.close();
  });
});
