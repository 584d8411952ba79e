// The real @sentry/browser 11.12 asking Sentry to infer the user's address (dataCollection.userInfo: an event's
// `sdk.settings.infer_ip: "auto"`, a session's `ip_address: "{{auto}}"`), through a relay with SCRUB_IP_ADDRESSES:
// upstream gets no X-Sentry-Forwarded-For (from which Sentry fills user.ip_address) and is told to infer nothing.
// @vitest-environment happy-dom-on-node

import { eventually } from '@app/test-kit';
import * as Sentry from '@sentry/browser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRelay } from '../with-relay.ts';

const under = withRelay({ SCRUB_IP_ADDRESSES: 'true' }, { projectId: '14', publicKey: 'browserip' });
beforeAll(() => {
  const { dsn, relay } = under;
  (globalThis as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(`${relay.url}/items/42`);
  Sentry.init({
    dsn,
    tunnel: '/monitoring',
    release: 'shop@1',
    dataCollection: { userInfo: true },
    integrations: [Sentry.browserSessionIntegration()],
  });
});
afterAll(() => Sentry.close(2000));

describe('@sentry/browser with userInfo through a relay with SCRUB_IP_ADDRESSES', () => {
  it('an error arrives with infer_ip "never" and no forwarded address', async () => {
    const id = Sentry.captureException(new Error('cart total is NaN'));
    await Sentry.flush(2000);
    const arrived = await under.capture.waitFor((e) => e.header.event_id === id);
    expect(arrived.requestHeaders).not.toHaveProperty('x-sentry-forwarded-for');
    const event = arrived.items[0]?.json as { sdk: { settings: Record<string, unknown> } };
    expect(event.sdk.settings.infer_ip).toBe('never');
  });

  it('a session arrives without its {{auto}} address', async () => {
    await eventually(() => under.capture.items('session').length > 0, 5000, 'a session');
    const session = under.capture.items('session')[0]?.json as { attrs: Record<string, unknown> };
    expect(session.attrs.release).toBe('shop@1');
    expect(session.attrs).not.toHaveProperty('ip_address');
  });
});
