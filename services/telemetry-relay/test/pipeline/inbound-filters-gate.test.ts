// The inbound filters' gate: which payloads are never parsed, and that the gate never changes a filter's decision.

import { ConfigError } from '@app/service-kit';
import { errorEvent } from '@app/test-kit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createItem } from '../../src/envelope/serialize.ts';
import { globsToRegExp } from '../../src/pipeline/inbound-filters/glob.ts';
import { DEFAULT_FILTER_IDS } from '../../src/pipeline/inbound-filters/settings.ts';
import { createInboundFilters } from '../../src/pipeline/inbound-filters/stage.ts';
import { parsedPayload } from '../../src/pipeline/parsed-event.ts';
import { testConfig } from '../with-relay.ts';

const defaults = createInboundFilters({ ids: [...DEFAULT_FILTER_IDS], errorMessages: [], releases: [] });
const item = (type: string, payload: string) => createItem({ type }, Buffer.from(payload));
const reasonOf = (result: ReturnType<typeof defaults>) => result.dropped.map((d) => d.reason);

afterEach(() => vi.restoreAllMocks());

describe('inbound filters: the gate before any parse', () => {
  it('does not parse a browser error no filter can match (the bench envelope’s shape)', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const event = errorEvent();
    event.request.headers['User-Agent'] =
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
    const result = defaults([item('event', JSON.stringify(event))]);
    expect(reasonOf(result)).toEqual([]);
    expect(parse).not.toHaveBeenCalled();
  });

  it.each([
    ['pretty-printed JSON', JSON.stringify({ request: { headers: { 'user-agent': 'Googlebot/2.1' } } }, null, 2)],
    [
      'escaped slashes',
      '{"exception":{"values":[{"stacktrace":{"frames":[{"abs_path":"chrome-extension:\\/\\/x\\/a.js"}]}}]}}',
    ],
    ['a \\u-escaped key', '{"request":{"headers":{"User\\u002dAgent":"Googlebot/2.1"}}}'],
    ['an upper-case header name', '{"request":{"headers":{"USER-AGENT":"Googlebot/2.1"}}}'],
    ['non-ASCII around the value', '{"exception":{"values":[{"value":"ü top.GLOBALS ü"}]}}'],
  ])('never lets a match through: %s', (_name, payload) => {
    expect(reasonOf(defaults([item('event', payload)]))).toHaveLength(1);
  });

  it('parses an item at most once, whichever stage asks first', () => {
    const event = item('event', '{"exception":{"values":[{"value":"Extension context invalidated"}]}}');
    const parse = vi.spyOn(JSON, 'parse');
    const first = parsedPayload(event);
    expect(reasonOf(defaults([event]))).toEqual(['browser-extensions']);
    expect(parsedPayload(event)).toBe(first);
    expect(parse).toHaveBeenCalledTimes(1);
  });

  it('drops the envelope’s attachments with its event, under the event’s reason', () => {
    const attachment = createItem({ type: 'attachment', length: 10 }, Buffer.alloc(10));
    const session = item('session', '{"sid":"s"}');
    const event = item(
      'event',
      '{"exception":{"values":[{"type":"ChunkLoadError","value":"Loading chunk 7 failed."}]}}',
    );
    const result = defaults([event, attachment, session]);
    expect(result.items).toEqual([session]);
    expect(result.discarded).toEqual([
      { reason: 'chunk-load-error', category: 'error', quantity: 1 },
      { reason: 'chunk-load-error', category: 'attachment', quantity: 10 },
      { reason: 'chunk-load-error', category: 'attachment_item', quantity: 1 },
    ]);
  });

  it('leaves invalid JSON and other item types to upstream', () => {
    const items = [item('event', '{"exception": chrome-extension://'), item('session', '{"did":"Googlebot/2.1"}')];
    expect(defaults(items).items).toBe(items);
  });
});

describe('inbound filters: configuration', () => {
  it('defaults to a new Sentry project’s set (localhost is opt-in)', () => {
    expect(testConfig({ ALLOWED_DSNS: 'https://k@o1.ingest.sentry.io/1' }).inboundFilters).toEqual({
      ids: [
        'invalid-csp',
        'browser-extensions',
        'legacy-browsers',
        'web-crawlers',
        'filtered-transaction',
        'chunk-load-error',
        'react-hydration-errors',
      ],
      errorMessages: [],
      releases: [],
    });
    const none = testConfig({ ALLOWED_DSNS: 'https://k@o1.ingest.sentry.io/1', INBOUND_FILTERS: 'none' });
    expect(none.inboundFilters.ids).toEqual([]);
  });

  it.each([
    [
      'an unknown id',
      { INBOUND_FILTERS: 'browser-extensions,chrome-extension' },
      /INBOUND_FILTERS names an unknown filter "chrome-extension"/,
    ],
    [
      'error-message as an id',
      { INBOUND_FILTERS: 'default,error-message' },
      /INBOUND_FILTERS names "error-message": that filter is on when INBOUND_ERROR_MESSAGES/,
    ],
    ['a long glob', { INBOUND_RELEASES: 'x'.repeat(201) }, /INBOUND_RELEASES has a glob longer than 200/],
  ])('refuses %s, naming the variable', (_name, env, message) => {
    expect(() => testConfig({ ALLOWED_DSNS: 'https://k@o1.ingest.sentry.io/1', ...env })).toThrow(ConfigError);
    try {
      testConfig({ ALLOWED_DSNS: 'https://k@o1.ingest.sentry.io/1', ...env });
    } catch (error) {
      expect((error as ConfigError).problems.join('\n')).toMatch(message);
    }
  });

  it('runs the opt-in error-message and releases filters with their globs (error_messages.rs, releases.rs)', () => {
    const config = testConfig({
      ALLOWED_DSNS: 'https://k@o1.ingest.sentry.io/1',
      INBOUND_ERROR_MESSAGES: '*Panic*,TypeError: *undefined*',
      INBOUND_RELEASES: 'shop@1.0.*',
    });
    const judge = createInboundFilters(config.inboundFilters);
    const judged = (event: unknown) => reasonOf(judge([item('event', JSON.stringify(event))]));
    expect(judged({ logentry: { formatted: 'Kernel Panic at 3' } })).toEqual(['error-message']);
    expect(judged({ exception: { values: [{ type: 'TypeError', value: 'x is undefined' }] } })).toEqual([
      'error-message',
    ]);
    expect(judged({ exception: { values: [{ type: 'TypeError', value: 'x is null' }] } })).toEqual([]);
    expect(judged({ release: 'SHOP@1.0.7' })).toEqual(['release-version']);
    expect(judged({ release: 'shop@1.1.0' })).toEqual([]);
  });
});

describe("Relay's globs", () => {
  // A table of cases, alike in shape to other functions' tables on purpose (`duplicates` pairs them).
  it.each([
    ['*healthcheck*', 'a/b/HealthCheck/c', true],
    ['*/health', '/health/', false],
    ['*react.dev/errors/{418,419}*', 'see https://react.dev/errors/419 now', true],
    ['*react.dev/errors/{418,419}*', 'see https://react.dev/errors/420 now', false],
    ['error-decoder.html?invariant=1', 'error-decoder.htmlXinvariant=1', true],
    ['[!a]bc', 'abc', false],
    ['a\\*c', 'abc', false],
  ])('%s against %s: %s', (glob, value, expected) => {
    expect(globsToRegExp([glob]).test(value)).toBe(expected);
  });
});
