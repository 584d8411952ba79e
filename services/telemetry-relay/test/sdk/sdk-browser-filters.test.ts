// The real @sentry/browser SDK (happy-dom) through the relay with its default inbound filters: what Sentry's intake
// would drop is dropped here, and the client report says which filter dropped it.
// @vitest-environment happy-dom-on-node

import { eventually } from '@app/test-kit';
import * as Sentry from '@sentry/browser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRelay } from '../with-relay.ts';

const under = withRelay({ CLIENT_REPORT_INTERVAL_MS: '100' }, { projectId: '29', publicKey: 'filterbrowser' });
beforeAll(() => {
  const { dsn, relay } = under;
  (globalThis as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(`${relay.url}/items/42`);
  Sentry.init({ dsn, tunnel: '/monitoring', release: 'shop@1', integrations: [] });
});
afterAll(() => Sentry.close(2000));

/** An error as Chrome reports one thrown by an extension's content script. */
function extensionError(): Error {
  const error = new TypeError("Cannot read properties of null (reading 'dataset')");
  error.stack = [
    "TypeError: Cannot read properties of null (reading 'dataset')",
    '    at highlight (chrome-extension://nngceckbapebfimnlniiiahkandclblb/content/highlight.js:41:17)',
    '    at HTMLDocument.<anonymous> (chrome-extension://nngceckbapebfimnlniiiahkandclblb/content/main.js:9:3)',
  ].join('\n');
  return error;
}

describe('@sentry/browser through the relay: inbound filters', () => {
  it('drops a ChunkLoadError and an extension error, keeps the app’s own, and reports both reasons', async () => {
    const chunk = new Error('Loading chunk 412 failed.\n(error: https://shop.example.com/assets/412.js)');
    chunk.name = 'ChunkLoadError';
    const dropped = [Sentry.captureException(chunk), Sentry.captureException(extensionError())];
    const kept = Sentry.captureException(new Error('cart total is NaN'));
    await Sentry.flush(2000);

    await under.capture.waitFor((e) => e.header.event_id === kept);
    type Report = { discarded_events?: Array<{ reason: string; category: string; quantity: number }> };
    const reasons = () =>
      under.capture.items('client_report').flatMap((item) => (item.json as Report).discarded_events ?? []);
    await eventually(
      () => ['chunk-load-error', 'browser-extensions'].every((r) => reasons().some((d) => d.reason === r)),
      5000,
      'a client report naming both filters',
    );
    expect(reasons()).toEqual(
      expect.arrayContaining([
        { reason: 'chunk-load-error', category: 'error', quantity: 1 },
        { reason: 'browser-extensions', category: 'error', quantity: 1 },
      ]),
    );
    const arrivedIds = under.capture.envelopes.map((e) => e.header.event_id);
    for (const id of dropped) expect(arrivedIds).not.toContain(id);
  });
});
