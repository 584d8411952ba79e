// Forced tracing, against the real process and the real Node SDK: clients that send `sentry-trace: …-1` get their
// trace continued only as far as TRACE_CONTINUATION_PER_SECOND allows, and only for this organization's traces;
// the rest is decided here (at rate 0: not traced). What counts is what reaches the capture server.
import { type CapturedEnvelope, type CaptureServer, type ServiceProcess, startCaptureServer } from '@app/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWeb } from '../support/web.ts';

const ORG = '17';
const PER_SECOND = 5;
let capture: CaptureServer;
let web: ServiceProcess;

beforeAll(async () => {
  capture = await startCaptureServer();
  web = await startWeb({
    SENTRY_DSN: capture.dsn(),
    SENTRY_ORG_ID: ORG,
    SENTRY_TRACES_SAMPLE_RATE: '0',
    TRACE_CONTINUATION_PER_SECOND: String(PER_SECOND),
  });
});
afterAll(async () => {
  await web?.kill();
  await capture?.close();
});

const traceIdOf = (n: number) => `${n.toString(16).padStart(8, '0')}${'ab'.repeat(12)}`;
const forced = (traceId: string, org = ORG) => ({
  'sentry-trace': `${traceId}-0123456789abcdef-1`,
  baggage: `sentry-trace_id=${traceId},sentry-org_id=${org},sentry-sampled=true,sentry-sample_rand=0`,
});
/** Trace ids of the server spans received (the Node SDK streams `span` items). */
const tracedIds = (envelopes: CapturedEnvelope[]) =>
  new Set(
    envelopes.flatMap((e) =>
      e.items
        .filter((item) => item.type === 'span')
        .flatMap((item) => (item.json as { items?: { trace_id: string }[] }).items ?? [])
        .map((span) => span.trace_id),
    ),
  );
const metaTrace = (html: string) => /<meta name="sentry-trace" content="([^"]+)"/.exec(html)?.[1] ?? '';

describe('trace continuation budget (TRACE_CONTINUATION_PER_SECOND=5, rate 0)', () => {
  it('1 000 page-data requests forcing a sampled trace send at most the budget of traces upstream', async () => {
    const started = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < 1_000) {
        const n = next++;
        const res = await fetch(`${web.url}/catalog`, { headers: { ...forced(traceIdOf(n)), 'x-page-data': '1' } });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: 10 }, worker));
    const seconds = (performance.now() - started) / 1000;
    const budget = PER_SECOND + Math.ceil(PER_SECOND * seconds);
    const sent = new Set(Array.from({ length: 1_000 }, (_, n) => traceIdOf(n)));
    // Spans are flushed every 5 s at the latest: wait until one arrives, then past the next flush.
    await capture.waitFor((e) => [...tracedIds([e])].some((id) => sent.has(id)), 10_000);
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const continued = [...tracedIds(capture.envelopes)].filter((id) => sent.has(id));
    process.stdout.write(`trace budget: ${continued.length} of 1000 forced traces sent in ${seconds.toFixed(1)} s\n`);
    expect(continued.length).toBeGreaterThanOrEqual(PER_SECOND);
    expect(continued.length).toBeLessThanOrEqual(budget);

    const metrics = await (await fetch(`${web.url}/metrics`)).text();
    const count = (outcome: string) =>
      Number(new RegExp(`web_trace_continuations_total\\{outcome="${outcome}"\\} (\\d+)`).exec(metrics)?.[1]);
    expect(count('continued') + count('over_budget')).toBe(1_000);
    expect(count('continued')).toBe(continued.length);
  }, 90_000);

  it('answers a request over the budget on a trace of its own, not the one it sent', async () => {
    // The bucket is empty after a burst.
    const answers = await Promise.all(
      Array.from({ length: 3 * PER_SECOND }, async (_, n) => {
        const traceId = traceIdOf(5_000 + n);
        const res = await fetch(`${web.url}/catalog`, { headers: forced(traceId) });
        return { traceId, meta: metaTrace(await res.text()) };
      }),
    );
    const own = answers.filter(({ traceId, meta }) => !meta.startsWith(traceId));
    expect(own.length).toBeGreaterThan(0);
    for (const { meta } of own) expect(meta).toMatch(/^[0-9a-f]{32}-[0-9a-f]{16}-0$/);
  });

  it("does not continue another organization's trace (strictTraceContinuation)", async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // the bucket refills
    const traceId = traceIdOf(9_000);
    const res = await fetch(`${web.url}/catalog`, { headers: forced(traceId, '99') });
    const meta = metaTrace(await res.text());
    expect(meta.slice(0, 32)).not.toBe(traceId);
    expect(meta).toMatch(/-0$/);
  });
});
