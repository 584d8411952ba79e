// The real @sentry/node 11.12 with SDK 11's item types: spans streamed (traceLifecycle 'stream': a span v2
// container), logs (on by default in 11: a log container) and trace metrics, through the relay with its default
// scrubbing. Each item carries a planted secret; upstream must see every item and none of the secrets.
import * as Sentry from '@sentry/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRelay } from '../with-relay.ts';

const SPAN_SECRET = 'hunter2-span-attribute';
const URL_SECRET = 's3cr3t-in-url-full';
const CARD = '4571234567890111';
const LOG_SECRET = 'sk-log-attribute-77';
const METRIC_SECRET = 'sk-metric-attribute-88';
const under = withRelay({}, { projectId: '13', publicKey: 'nodeitems' });

beforeAll(() => {
  Sentry.init({
    dsn: under.dsn,
    tunnel: under.relay.tunnel,
    release: 'items-test@1',
    defaultIntegrations: false,
    traceLifecycle: 'stream',
    tracesSampleRate: 1,
  });
  Sentry.startSpan(
    {
      name: 'POST /login',
      attributes: { password: SPAN_SECRET, 'url.full': `https://shop.example/login?password=${URL_SECRET}` },
    },
    () => {
      Sentry.logger.info(`paid with card ${CARD}`, { api_key: LOG_SECRET });
      Sentry.metrics.count('logins', 1, { attributes: { api_key: METRIC_SECRET } });
    },
  );
});
afterAll(async () => {
  await Sentry.close(2000);
});

interface Container {
  items: Array<{ attributes: Record<string, { value: unknown }>; body?: string }>;
}

describe('@sentry/node 11 streamed spans, logs and metrics', () => {
  it('arrive upstream, every item, without the planted secrets', async () => {
    await Sentry.flush(2000);
    const itemOf = async (type: string) => {
      const arrived = await under.capture.waitFor((e) => e.items.some((item) => item.header.type === type));
      const item = arrived.items.find((i) => i.header.type === type);
      const text = item?.payload.toString('utf8') ?? '';
      for (const secret of [SPAN_SECRET, URL_SECRET, CARD, LOG_SECRET, METRIC_SECRET])
        expect(text).not.toContain(secret);
      return JSON.parse(text) as Container;
    };
    const span = await itemOf('span');
    expect(span.items[0]?.attributes.password?.value).toBe('[Filtered]');
    expect(span.items[0]?.attributes['url.full']?.value).toBe('[Filtered]');
    expect(span.items[0]?.attributes['sentry.release']?.value).toBe('items-test@1'); // exempt by the conventions
    const log = await itemOf('log');
    expect(log.items[0]?.body).toBe('paid with card [creditcard]');
    expect(log.items[0]?.attributes.api_key?.value).toBe('[Filtered]');
    const metric = await itemOf('trace_metric');
    expect(metric.items[0]?.attributes.api_key?.value).toBe('[Filtered]');
  });
});
