// Telemetry from the real SDKs: the browser posts through the same-origin tunnel path of the web service, which
// forwards to a capture upstream (standing in for Sentry; the relay goes between them once wired); the Node SDK posts
// to the DSN. What matters is what arrives upstream.
import { type CapturedEnvelope, type CaptureServer, type ServiceProcess, startCaptureServer } from '@app/test-kit';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot, waitForHydration, watchConsole } from '../support/browser.ts';
import { startWeb } from '../support/web.ts';

let capture: CaptureServer;
let web: ServiceProcess;
let browser: Browser;

beforeAll(async () => {
  capture = await startCaptureServer();
  [web, browser] = await Promise.all([
    startWeb({
      DIAGNOSTICS: '1',
      SENTRY_DSN: capture.dsn(),
      SENTRY_TRACES_SAMPLE_RATE: '1',
      SENTRY_RELEASE: 'web@e2e',
      SENTRY_ENVIRONMENT: 'e2e',
      TUNNEL_TARGET: capture.envelopeUrl('1'),
    }),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await web?.kill();
  await capture?.close();
});

const itemOf = (envelope: CapturedEnvelope, type: string) =>
  envelope.items.find((item) => item.type === type)?.json as Record<string, unknown> | undefined;
/** Came from the browser, through the web service's tunnel path (which adds X-Forwarded-For). */
const viaTunnel = (envelope: CapturedEnvelope) =>
  envelope.requestHeaders['x-forwarded-for'] !== undefined &&
  String((envelope.header.sdk as { name?: string } | undefined)?.name).includes('react');
interface StreamedSpan {
  trace_id: string;
  name: string;
  attributes?: Record<string, { value?: unknown }>;
}
/** The Node SDK streams spans (`span` items, v2 containers), not `transaction` items. */
async function serverSpans(traceId: string): Promise<StreamedSpan[]> {
  const spansOf = (e: CapturedEnvelope) =>
    ((itemOf(e, 'span') as { items?: StreamedSpan[] } | undefined)?.items ?? []).filter((s) => s.trace_id === traceId);
  await capture.waitFor((e) => spansOf(e).length > 0, 20_000);
  return capture.envelopes.flatMap(spansOf);
}
const contextsOf = (envelope: CapturedEnvelope, type: string) =>
  (itemOf(envelope, type)?.contexts ?? {}) as { trace?: { trace_id?: string }; culture?: Record<string, unknown> };
const exceptionValue = (event: Record<string, unknown> | undefined) =>
  ((event?.exception as { values?: Array<{ value?: string }> } | undefined)?.values ?? [])
    .map((v) => v.value)
    .join(' ');

async function open(path: string): Promise<{ page: Page; seen: ReturnType<typeof watchConsole> }> {
  const page = await browser.newPage();
  const seen = watchConsole(page);
  await page.goto(`${web.url}${path}`);
  await waitForHydration(page);
  return { page, seen };
}

describe('telemetry through the tunnel', () => {
  it('sends a pageload transaction named by route pattern that continues the server trace', async () => {
    const { page, seen } = await open('/catalog/amber-lamp');
    const serverTrace = await page.getAttribute('meta[name="sentry-trace"]', 'content');
    expect(serverTrace).toMatch(/^[0-9a-f]{32}-[0-9a-f]{16}-1$/);
    const envelope = await capture.waitFor(
      (e) => viaTunnel(e) && itemOf(e, 'transaction')?.transaction === '/catalog/:slug',
      20_000,
    );
    const transaction = itemOf(envelope, 'transaction') as {
      contexts: { trace: { op: string; trace_id: string } };
      release: string;
      environment: string;
    };
    expect(transaction.contexts.trace.op).toBe('pageload');
    expect(transaction.contexts.trace.trace_id).toBe(serverTrace?.split('-')[0]);
    expect(transaction.release).toBe('web@e2e');
    expect(transaction.environment).toBe('e2e');
    // Release health: the page's session arrives too.
    await capture.waitFor((e) => viaTunnel(e) && e.items.some((item) => item.type === 'session'), 20_000);
    expect(seen.errors).toEqual([]);
    await page.close();
  });

  it('reports a client exception and never an ignored one', async () => {
    const { page, seen } = await open('/diagnostics/ignored-error');
    await page.click('text=Throw an ignored error');
    await page.click('a[href="/diagnostics/client-error"]');
    await page.click('text=Throw in the browser');
    await expect
      .poll(() => page.textContent('main h1'))
      .toBe('Application error: a client-side exception has occurred (see the browser console for more information)');
    const envelope = await capture.waitFor(
      (e) => viaTunnel(e) && exceptionValue(itemOf(e, 'event')).includes('diagnostics: render failure'),
      20_000,
    );
    expect(itemOf(envelope, 'event')?.level).toBe('error');
    // Exactly once, and the ignored error (thrown earlier, so sent earlier if at all) never arrived.
    const events = capture.items('event').map((item) => exceptionValue(item.json as Record<string, unknown>));
    expect(events.filter((v) => v.includes('diagnostics: render failure'))).toHaveLength(1);
    expect(events.filter((v) => v.includes('ResizeObserver'))).toEqual([]);
    expect(seen.errors.some((e) => e.includes('ResizeObserver loop'))).toBe(true);
    await page.close();
  });

  it("puts the visitor's culture on a client error, and not on the pageload transaction", async () => {
    // A locale and time zone other than the machine's, so the values can only come from the visitor's browser.
    const context = await browser.newContext({ locale: 'de-DE', timezoneId: 'Pacific/Auckland' });
    const page = await context.newPage();
    await page.goto(`${web.url}/diagnostics/client-error`);
    await waitForHydration(page);
    const traceId = (await page.getAttribute('meta[name="sentry-trace"]', 'content'))?.slice(0, 32);
    const pageload = await capture.waitFor(
      (e) => viaTunnel(e) && contextsOf(e, 'transaction').trace?.trace_id === traceId,
      20_000,
    );
    // Reading the time zone costs a phone ≈ 80 ms of main thread on every load; the transaction goes without it.
    expect(contextsOf(pageload, 'transaction').culture).toBeUndefined();

    await page.click('text=Throw in the browser');
    const envelope = await capture.waitFor(
      (e) =>
        viaTunnel(e) &&
        exceptionValue(itemOf(e, 'event')).includes('diagnostics: render failure') &&
        contextsOf(e, 'event').trace?.trace_id === traceId,
      20_000,
    );
    expect(contextsOf(envelope, 'event').culture).toEqual({
      locale: 'de-DE',
      timezone: 'Pacific/Auckland',
      calendar: 'gregory',
    });
    await context.close();
  });

  it('shows the server exception digest, which is the event id upstream and in the log line', async () => {
    const { page } = await open('/diagnostics/server-error');
    const digest = await page.textContent('[data-testid="digest"]');
    expect(digest).toMatch(/^[0-9a-f]{32}$/);
    const envelope = await capture.waitFor((e) => itemOf(e, 'event')?.event_id === digest, 20_000);
    expect(exceptionValue(itemOf(envelope, 'event'))).toContain('diagnostics: loader failure');
    const failure = web.logs.find((line) => line.digest === digest && typeof line.requestId === 'string');
    expect(failure).toBeDefined();
    // The request's log lines carry its trace id, and its own line is written whatever the log sampling.
    expect(failure?.traceId).toMatch(/^[0-9a-f]{32}$/);
    await expect
      .poll(() => web.logs.find((line) => line.msg === 'request completed' && line.requestId === failure?.requestId))
      .toMatchObject({ res: { statusCode: 500 }, traceId: failure?.traceId });
    // Captured once: no second event for the same failure from Fastify's instrumentation.
    await page.waitForTimeout(1_000);
    const sameFailure = capture
      .items('event')
      .filter((item) => item.json && (item.json as { event_id?: string }).event_id !== undefined)
      .filter((item) => exceptionValue(item.json as Record<string, unknown>).includes('loader failure'));
    expect(sameFailure).toHaveLength(1);
    await page.close();
  });

  it('streams the server trace named by route pattern, with no per-hook spans', async () => {
    const res = await fetch(`${web.url}/catalog/amber-lamp`);
    const traceId = /<meta name="sentry-trace" content="([0-9a-f]{32})-/.exec(await res.text())?.[1] ?? '';
    const spans = await serverSpans(traceId);
    expect(spans.map((span) => span.name)).toContain('GET /catalog/:slug');
    expect(spans.filter((span) => span.attributes?.['sentry.op']?.value === 'middleware.fastify')).toEqual([]);
  });

  it('continues an incoming trace on the server', async () => {
    const traceId = '0123456789abcdef0123456789abcdef';
    const res = await fetch(`${web.url}/catalog`, { headers: { 'sentry-trace': `${traceId}-0123456789abcdef-1` } });
    const html = await res.text();
    expect(html).toMatch(new RegExp(`<meta name="sentry-trace" content="${traceId}-[0-9a-f]{16}-1"/>`));
  });
});

describe('unsampled server requests (SENTRY_TRACES_SAMPLE_RATE=0)', () => {
  let unsampled: ServiceProcess;
  beforeAll(async () => {
    unsampled = await startWeb({
      SENTRY_DSN: capture.dsn(),
      SENTRY_TRACES_SAMPLE_RATE: '0',
      LOG_SAMPLE_EVERY: '1',
      DIAGNOSTICS: '1',
    });
  });
  afterAll(async () => {
    await unsampled?.kill();
  });
  const metaTrace = async (headers: Record<string, string> = {}) => {
    const res = await fetch(`${unsampled.url}/catalog`, { headers });
    return /<meta name="sentry-trace" content="([^"]+)"/.exec(await res.text())?.[1];
  };

  it('tell the browser the trace is not sampled, and their log lines still carry their own trace id', async () => {
    const [first, second] = [await metaTrace(), await metaTrace()];
    expect(first).toMatch(/^[0-9a-f]{32}-[0-9a-f]{16}-0$/);
    expect(first?.slice(0, 32)).not.toBe(second?.slice(0, 32));
    const traceId = first?.slice(0, 32);
    await expect
      .poll(() => unsampled.logs.find((line) => line.msg === 'request completed' && line.traceId === traceId))
      .toBeDefined();
  });

  // No span, but a scope all the same: a failure reaches Sentry with the request's data and the trace id the page gave
  // the browser and the logs (what any lighter per-request scope must keep: docs/benchmarks.md, 2026-11-24, late).
  it('report a failure with the request and the trace id the page and the log lines carry', async () => {
    const res = await fetch(`${unsampled.url}/diagnostics/server-error?from=e2e`, {
      headers: { 'user-agent': 'e2e-ua' },
    });
    expect(res.status).toBe(500);
    const html = await res.text();
    const trace = /<meta name="sentry-trace" content="([0-9a-f]{32})-[0-9a-f]{16}-0"/.exec(html)?.[1];
    const digest = /data-testid="digest"[^>]*>([0-9a-f]{32})</.exec(html)?.[1];
    expect(trace).toBeDefined();
    expect(digest).toBeDefined();
    const envelope = await capture.waitFor((e) => itemOf(e, 'event')?.event_id === digest, 20_000);
    const event = itemOf(envelope, 'event') as {
      request?: { url?: string; method?: string; query_string?: unknown; headers?: Record<string, string> };
      contexts?: { trace?: { trace_id?: string } };
      transaction?: string;
    };
    expect(event.request?.url).toBe(`${unsampled.url}/diagnostics/server-error?from=e2e`);
    expect(event.request?.method).toBe('GET');
    expect(event.request?.headers?.['user-agent']).toBe('e2e-ua');
    expect(event.contexts?.trace?.trace_id).toBe(trace);
    expect(event.transaction).toBe('GET /diagnostics/:failure');
    expect(unsampled.logs.find((line) => line.digest === digest)?.traceId).toBe(trace);
  });

  it('follow an incoming decision: sampled upstream means traced here, whatever the rate', async () => {
    const traceId = 'abcdefabcdefabcdefabcdefabcdef01';
    expect(await metaTrace({ 'sentry-trace': `${traceId}-0123456789abcdef-1` })).toMatch(
      new RegExp(`^${traceId}-[0-9a-f]{16}-1$`),
    );
    expect((await serverSpans(traceId)).map((span) => span.name)).toContain('GET /catalog');
    expect(await metaTrace({ 'sentry-trace': `${traceId.replace('01', '02')}-0123456789abcdef-0` })).toMatch(/-0$/);
  });
});

describe('feedback widget', () => {
  it('hides its button while the form is open, shows it after close and after submit, and delivers the feedback', async () => {
    const { page, seen } = await open('/');
    const trigger = page.locator('#sentry-feedback .widget__actor');
    await trigger.waitFor({ state: 'visible', timeout: 10_000 });
    const hidden = () => trigger.getAttribute('aria-hidden');
    expect(await hidden()).not.toBe('true');

    await trigger.click();
    await expect.poll(hidden).toBe('true');
    await page.locator('#sentry-feedback .btn--default').click(); // Cancel
    await expect.poll(hidden).not.toBe('true');

    await trigger.click();
    await expect.poll(hidden).toBe('true');
    await screenshot(page, 'feedback-form');
    await page.locator('#sentry-feedback textarea[name="message"]').fill('The lamp page is lovely (e2e).');
    await page.locator('#sentry-feedback .btn--primary').click();
    const envelope = await capture.waitFor((e) => itemOf(e, 'feedback') !== undefined, 20_000);
    const feedback = itemOf(envelope, 'feedback') as {
      contexts: { feedback: { message: string }; culture?: { locale?: string; timezone?: string } };
    };
    expect(feedback.contexts.feedback.message).toBe('The lamp page is lovely (e2e).');
    expect(feedback.contexts.culture).toMatchObject({ locale: expect.any(String), timezone: expect.any(String) });
    expect(viaTunnel(envelope)).toBe(true);
    // The success message shows for 5 s, then the button returns.
    await expect.poll(hidden, { timeout: 10_000 }).not.toBe('true');
    expect(seen.errors).toEqual([]);
    await page.close();
  });
});
