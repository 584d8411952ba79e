// The specification's six tracing numbers (§9), each shown in Chromium by what arrives upstream through tunnel and
// relay: a navigation ends 1 s after its last activity, 15 s after a request that never ends, 30 s at the latest;
// an event keeps the last 100 breadcrumbs; at most 64 sends wait at once; a transaction keeps 1000 spans.

import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';
import type { Page, Route } from 'playwright-core';
import { describe, it } from 'vitest';
import { waitForHydration, waitForSentry } from '../support/browser.ts';
import {
  type BrowserTransaction,
  browserTransaction,
  exceptionValue,
  itemOf,
  telemetrySuite,
  traceIdOf,
} from '../support/telemetry-stack.ts';

/** The specification's values (§9), written out here so that a change to the client's configuration fails a test. */
const SPEC = {
  idleTimeout: 1_000,
  finalTimeout: 30_000,
  childSpanTimeout: 15_000,
  maxBreadcrumbs: 100,
  pendingSends: 64,
  spansPerTransaction: 1_000,
};

const suite = telemetrySuite();
const open = async (path: string) => (await suite.open(path)).page;

/**
 * Starts a client navigation to `href` (a click without the pointer, so nothing was prefetched) and, in the same
 * task, runs `activity` in the page; resolves with the navigation's trace id, read off its page-data request.
 */
async function navigateWhile(page: Page, href: string, activity: string): Promise<string> {
  const pageData = page.waitForRequest((r) => r.headers()['x-page-data'] === '1' && r.url().endsWith(href));
  await page.evaluate(
    ({ target, script }) => {
      document.querySelector<HTMLAnchorElement>(`a[href="${target}"]`)?.click();
      // biome-ignore lint/security/noGlobalEval: the test's own activity script, run in the page it drives
      eval(script);
    },
    { target: href, script: activity },
  );
  return traceIdOf((await pageData).headers()['sentry-trace']) ?? '';
}

const navigationOf = (traceId: string, timeoutMs = 20_000) =>
  browserTransaction(suite.stack.capture, (t) => t.contexts.trace.trace_id === traceId, timeoutMs);
const finishReason = (t: BrowserTransaction) => t.contexts.trace.data?.['sentry.idle_span_finish_reason'];
/** A request of the page's (marked by its query) is a span of this transaction. */
const requested = (t: BrowserTransaction, query: string) =>
  t.spans.some((span) => span.op === 'http.client' && span.data?.['url.query'] === query);
const sleep = (ms: number) => `new Promise((resolve) => setTimeout(resolve, ${ms}))`;

// Concurrent: each test drives pages of its own and finds its envelopes by trace id or message, so the three short
// ones run inside the first one's 30 s wait for the final timeout instead of after it. Each uses its own test's
// `expect` (expect.poll must know which test it is in).
describe.concurrent('tracing limits', () => {
  it(`ends a navigation ${SPEC.idleTimeout} ms after its last activity, and one kept busy at ${SPEC.finalTimeout / 1000} s (or ${SPEC.childSpanTimeout / 1000} s after a request that never ends)`, async ({
    expect,
  }) => {
    const [idle, busy, stalled] = await Promise.all([open('/catalog'), open('/catalog'), open('/catalog')]);
    await stalled.route('**/stall', () => {}); // never answered

    // Activity 0.5 s after the last keeps the navigation open; 2 s later it has ended and the request is in no trace.
    const idleTrace = await navigateWhile(
      idle,
      '/catalog/amber-lamp',
      `(async () => { await fetch('/healthz?a'); await ${sleep(500)}; await fetch('/healthz?b'); await ${sleep(2_000)}; await fetch('/healthz?c'); })()`,
    );
    const busyTrace = await navigateWhile(
      busy,
      '/catalog/cedar-lamp',
      "setInterval(() => fetch('/healthz?busy'), 300)",
    );
    const stalledStarted = Date.now();
    const stalledTrace = await navigateWhile(stalled, '/catalog/brisk-lamp', "fetch('/stall')");

    const ended = await navigationOf(idleTrace);
    expect(finishReason(ended)).toBe('idleTimeout');
    expect(requested(ended, 'a')).toBe(true);
    expect(requested(ended, 'b')).toBe(true);
    expect(requested(ended, 'c')).toBe(false);

    // Ended when its request had been open 15 s (the SDK trims the end to the last finished span, so its arrival tells).
    const heartbeat = await navigationOf(stalledTrace, 30_000);
    expect(finishReason(heartbeat)).toBe('heartbeatFailed');
    const stalledFor = Date.now() - stalledStarted;
    expect(stalledFor).toBeGreaterThanOrEqual(SPEC.childSpanTimeout);
    expect(stalledFor).toBeLessThan(SPEC.childSpanTimeout + 10_000);

    const final = await navigationOf(busyTrace, 45_000);
    expect(finishReason(final)).toBe('finalTimeout');
    const duration = final.timestamp - final.start_timestamp;
    expect(duration).toBeGreaterThan(SPEC.finalTimeout / 1000 - 1);
    expect(duration).toBeLessThanOrEqual(SPEC.finalTimeout / 1000 + 0.01);
    await Promise.all([idle.close(), busy.close(), stalled.close()]);
  }, 90_000);

  it(`keeps ${SPEC.spansPerTransaction} spans of a navigation that made more`, async ({ expect }) => {
    const page = await open('/catalog');
    // Requests aborted before they start make small spans (no response, no timings): 1000 spans of answered requests
    // with their HTTP timings weigh about 1.2 MB, over the 1 MiB Sentry (and so tunnel and relay) takes for one event.
    const traceId = await navigateWhile(
      page,
      '/catalog/amber-lamp',
      "Promise.allSettled(Array.from({ length: 1100 }, (_, i) => fetch('/span-probe/' + i, { signal: AbortSignal.abort() })))",
    );
    const navigation = await navigationOf(traceId, 30_000);
    expect(navigation.spans.filter((span) => span.op === 'http.client').length).toBeGreaterThan(900);
    expect(navigation.spans).toHaveLength(SPEC.spansPerTransaction);
    await page.close();
  });

  it(`sends an error with the last ${SPEC.maxBreadcrumbs} breadcrumbs`, async ({ expect }) => {
    const page = await open('/');
    await page.evaluate(() => {
      for (let i = 0; i < 150; i++) console.log(`breadcrumb ${i}`);
      setTimeout(() => {
        throw new Error('after 150 console lines');
      });
    });
    const envelope = await suite.stack.capture.waitFor(
      (e) => exceptionValue(itemOf(e, 'event')).includes('after 150 console lines'),
      20_000,
    );
    const breadcrumbs = (itemOf(envelope, 'event')?.breadcrumbs ?? []) as Array<{ message?: string }>;
    expect(breadcrumbs).toHaveLength(SPEC.maxBreadcrumbs);
    expect(breadcrumbs.map((b) => b.message)).toEqual(
      Array.from({ length: SPEC.maxBreadcrumbs }, (_, i) => `breadcrumb ${i + 150 - SPEC.maxBreadcrumbs}`),
    );
    await page.close();
  });

  it(`holds at most ${SPEC.pendingSends} sends while the tunnel does not answer, and sends them when it does`, async ({
    expect,
  }) => {
    const page = await suite.browser.newPage();
    const held: Route[] = [];
    let holding = true;
    await page.route(`**${tunnelPathOf(suite.stack.capture.dsn())}`, (route) =>
      holding ? held.push(route) : route.continue(),
    );
    await page.goto(`${suite.stack.web.url}/`);
    await waitForHydration(page);
    await waitForSentry(page); // its transport's buffer is what is measured (before it, errors wait in a queue of 30)
    await page.evaluate(() => {
      for (let i = 0; i < 100; i++) {
        setTimeout(() => {
          throw new Error(`waiting send ${i}`);
        });
      }
    });
    await expect.poll(() => held.length, { timeout: 10_000 }).toBe(SPEC.pendingSends);
    await page.waitForTimeout(1_000);
    expect(held.length).toBe(SPEC.pendingSends);

    holding = false;
    await Promise.all(held.map((route) => route.continue()));
    const sent = () =>
      suite.stack.capture
        .items('event')
        .filter((item) => exceptionValue(item.json as Record<string, unknown>).includes('waiting send'));
    await expect.poll(() => sent().length, { timeout: 20_000 }).toBeGreaterThan(0);
    expect(sent().length).toBeLessThan(SPEC.pendingSends);
    await page.close();
  });
});
