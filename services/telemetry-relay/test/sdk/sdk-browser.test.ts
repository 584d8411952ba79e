// The real @sentry/browser SDK in happy-dom, on a page served from the relay's origin, sending through the
// same-origin tunnel path as the web service's pages do.
// @vitest-environment happy-dom-on-node

import { eventually } from '@app/test-kit';
import * as Sentry from '@sentry/browser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRelay } from '../with-relay.ts';

const under = withRelay({ CLIENT_REPORT_INTERVAL_MS: '100' }, { projectId: '12', publicKey: 'browserkey' });
beforeAll(() => {
  const { dsn, relay } = under;
  (globalThis as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(`${relay.url}/items/42`);
  Sentry.init({ dsn, tunnel: '/monitoring', release: 'shop@1', integrations: [Sentry.browserSessionIntegration()] });
});
afterAll(() => Sentry.close(2000));

describe('@sentry/browser through the relay', () => {
  it('a session arrives', async () => {
    await eventually(() => under.capture.items('session').length > 0, 5000, 'a session');
    expect(under.capture.items('session')[0]?.json).toMatchObject({ init: true, attrs: { release: 'shop@1' } });
  });

  it('an error arrives; an ignored one does not, and a client report counts it', async () => {
    const kept = Sentry.captureException(new Error('cart total is NaN'));
    Sentry.captureException(new Error('ResizeObserver loop limit exceeded'));
    await Sentry.flush(2000);
    const arrived = await under.capture.waitFor((e) => e.header.event_id === kept);
    expect(arrived.header.dsn).toBeDefined();
    expect(arrived.items[0]?.json).toMatchObject({ exception: { values: [{ value: 'cart total is NaN' }] } });
    await eventually(() => under.capture.items('client_report').length > 0, 5000, 'a client report');
    expect(under.capture.items('event').some((i) => JSON.stringify(i.json).includes('ResizeObserver'))).toBe(false);
  });

  it('feedback with a screenshot arrives byte for byte', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 10, 255, 13]);
    const id = Sentry.captureFeedback(
      { message: 'The checkout button does nothing', name: 'Ada' },
      { attachments: [{ filename: 'screenshot.png', data: png, contentType: 'application/png' }] },
    );
    await Sentry.flush(2000);
    const arrived = await under.capture.waitFor((e) => e.header.event_id === id);
    expect(arrived.items.map((i) => i.type)).toEqual(['feedback', 'attachment']);
    expect(arrived.items[0]?.json).toMatchObject({
      contexts: { feedback: { message: 'The checkout button does nothing' } },
    });
    expect(arrived.items[1]?.payload.equals(Buffer.from(png))).toBe(true);
  });
});
