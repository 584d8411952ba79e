// The real @sentry/node SDK, sending through the relay's tunnel as a server-side app would.
import { eventually } from '@app/test-kit';
import * as Sentry from '@sentry/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRelay } from '../with-relay.ts';

const under = withRelay({ CLIENT_REPORT_INTERVAL_MS: '100' }, { projectId: '11', publicKey: 'nodekey' });
beforeAll(() => {
  const { dsn, relay } = under;
  Sentry.init({ dsn, tunnel: relay.tunnel, tracesSampleRate: 1, release: 'relay-test@1', defaultIntegrations: false });
});
afterAll(() => Sentry.close(2000));

describe('@sentry/node through the relay', () => {
  it('an error arrives upstream; an ignored one does not, and a client report says so', async () => {
    const kept = Sentry.captureException(new TypeError('payment form exploded'));
    const ignored = Sentry.captureException(new Error('ResizeObserver loop limit exceeded'));
    await Sentry.flush(2000);
    const arrived = await under.capture.waitFor((e) => e.header.event_id === kept);
    expect(arrived.items[0]?.json).toMatchObject({
      exception: { values: [{ type: 'TypeError', value: 'payment form exploded' }] },
    });
    await eventually(() => under.capture.items('client_report').length > 0, 5000, 'a client report');
    expect(
      under.capture.envelopes.some((e) => e.header.event_id === ignored && e.items.some((i) => i.type === 'event')),
    ).toBe(false);
    expect(under.capture.items('client_report')[0]?.json).toMatchObject({
      discarded_events: [{ reason: 'filtered', category: 'error', quantity: 1 }],
    });
  });

  it('spans arrive', async () => {
    Sentry.startSpan({ name: 'checkout', op: 'task' }, () => {
      Sentry.startSpan({ name: 'charge card', op: 'http.client' }, () => undefined);
    });
    await Sentry.flush(2000);
    await eventually(
      () => under.capture.items('span').length + under.capture.items('transaction').length > 0,
      5000,
      'spans',
    );
    const names = JSON.stringify(
      [...under.capture.items('span'), ...under.capture.items('transaction')].map((i) => i.json),
    );
    expect(names).toContain('checkout');
    expect(names).toContain('charge card');
  });
});
