// Sentry Relay's inbound filters in the relay, shown in Chromium through tunnel and relay: a ChunkLoadError and an
// error thrown from a chrome-extension:// script are dropped at the relay (not in the browser: the SDK sends them),
// a sentinel error sent after them arrives, and the relay's client report names the filters.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/containers.ts';
import {
  errorTexts,
  relayDropped as relayDroppedBy,
  sendSentinel,
  telemetrySuite,
} from '../support/telemetry-stack.ts';

const suite = telemetrySuite();

const sentinel = (page: Page, message: string) => sendSentinel(suite.stack, page, message);
const relayDropped = (reason: string) => relayDroppedBy(suite.stack, reason);

describe("the relay's inbound filters with the browser SDK in Chromium", () => {
  it('drops a ChunkLoadError and an extension error upstream never sees, and reports why', async () => {
    const { page } = await suite.open('/catalog');
    await page.evaluate(() => {
      setTimeout(() => {
        const error = new Error('Loading chunk 7 failed.\n(error: /assets/chunk-7.js)');
        error.name = 'ChunkLoadError';
        throw error;
      });
      setTimeout(() => {
        // As Chrome writes the stack of an error thrown by an extension's content script.
        const error = new TypeError("Cannot read properties of null (reading 'dataset')");
        error.stack = [
          "TypeError: Cannot read properties of null (reading 'dataset')",
          '    at highlight (chrome-extension://nngceckbapebfimnlniiiahkandclblb/content/highlight.js:41:17)',
        ].join('\n');
        throw error;
      });
    });
    await sentinel(page, 'sentinel after filtered errors');
    expect(errorTexts(suite.stack.capture)).toEqual(['sentinel after filtered errors']);
    expect(await relayDropped('chunk-load-error')).toBe(1);
    expect(await relayDropped('browser-extensions')).toBe(1);

    // Nothing was left of those envelopes: their outcomes come in the relay's next batch of client reports.
    type Report = { discarded_events?: Array<{ reason: string; category: string; quantity: number }> };
    const reasons = () =>
      suite.stack.capture.items('client_report').flatMap((item) => (item.json as Report).discarded_events ?? []);
    await eventually(
      async () => ['chunk-load-error', 'browser-extensions'].every((r) => reasons().some((d) => d.reason === r)),
      25_000,
      'a client report naming chunk-load-error and browser-extensions',
    );
    expect(reasons()).toEqual(
      expect.arrayContaining([
        { reason: 'chunk-load-error', category: 'error', quantity: 1 },
        { reason: 'browser-extensions', category: 'error', quantity: 1 },
      ]),
    );
    await page.close();
  });
});
