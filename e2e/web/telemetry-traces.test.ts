// Navigation traces in Chromium, as they arrive upstream through tunnel and relay: a client navigation is a
// `navigation` transaction named by route pattern, and the page-data and action requests it makes carry its trace to
// the server, whose spans join it.
import type { Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserTransaction, serverSpans, telemetrySuite, traceIdOf } from '../support/telemetry-stack.ts';

const suite = telemetrySuite();
const { open } = suite;

/** A click without the pointer (no hover, so no prefetch): the navigation itself must ask for the page data. */
const clickLink = (page: Page, href: string) =>
  page.evaluate((target) => document.querySelector<HTMLAnchorElement>(`a[href="${target}"]`)?.click(), href);

const isPageData = (path: string, method: string) => (request: Request) =>
  request.method() === method && new URL(request.url()).pathname === path && request.headers()['x-page-data'] === '1';

describe('navigation traces', () => {
  it('names a client navigation by route pattern, and its page-data request continues the trace on the server', async () => {
    const { page, seen } = await open('/catalog');
    const pageData = page.waitForRequest(isPageData('/catalog/amber-lamp', 'GET'));
    await clickLink(page, '/catalog/amber-lamp');
    const headers = (await pageData).headers();
    await expect.poll(() => page.textContent('main h1')).toBe('Amber Lamp');

    const traceId = traceIdOf(headers['sentry-trace']);
    expect(headers['sentry-trace']).toMatch(/^[0-9a-f]{32}-[0-9a-f]{16}-1$/);
    expect(headers.baggage).toContain(`sentry-trace_id=${traceId}`);
    const navigation = await browserTransaction(
      suite.stack.capture,
      (t) => t.contexts.trace.op === 'navigation' && t.contexts.trace.trace_id === traceId,
    );
    expect(navigation.transaction).toBe('/catalog/:slug');
    expect(navigation.transaction_info?.source).toBe('route');
    // The page-data request is a span of the navigation, and the server's span for it is in the same trace.
    const spanId = headers['sentry-trace']?.split('-')[1];
    expect(
      navigation.spans.some((span) => span.op === 'http.client' && span.description?.endsWith('/catalog/amber-lamp')),
    ).toBe(true);
    const server = (await serverSpans(suite.stack.capture, traceId ?? '')).find((s) => s.name === 'GET /catalog/:slug');
    expect(server).toBeDefined();
    expect(seen.errors).toEqual([]);
    expect(spanId).toMatch(/^[0-9a-f]{16}$/);
    await page.close();
  });

  it("carries the navigation's trace on an action's POST, and the server's span for it has that trace id", async () => {
    const { page, seen } = await open('/preferences');
    await page.fill('#displayName', 'Trace Tester');
    const action = page.waitForRequest(isPageData('/preferences', 'POST'));
    await page.click('button[type="submit"]');
    const headers = (await action).headers();
    await expect.poll(() => page.textContent('[role="status"]')).toContain('saved');

    const traceId = traceIdOf(headers['sentry-trace']);
    expect(headers['sentry-trace']).toMatch(/^[0-9a-f]{32}-[0-9a-f]{16}-1$/);
    expect(headers.baggage).toContain(`sentry-trace_id=${traceId}`);
    const server = (await serverSpans(suite.stack.capture, traceId ?? '')).find((s) => s.name === 'POST /preferences');
    expect(server).toBeDefined();
    // The submission is a navigation of the browser's, in the same trace.
    const navigation = await browserTransaction(suite.stack.capture, (t) => t.contexts.trace.trace_id === traceId);
    expect(navigation.contexts.trace.op).toBe('navigation');
    expect(seen.errors).toEqual([]);
    await page.close();
  });
});
