// The tunnel's stages one at a time, without HTTP: authorize, filter, rate limits, item categories and identity.

import { ignoreRules } from '@app/telemetry-rules';
import { attachmentItem, envelope, errorEvent, eventItem } from '@app/test-kit';
import { describe, expect, it } from 'vitest';
import type { RelayError } from '../../src/core/errors.ts';
import { itemCategory, KNOWN_ITEM_TYPES } from '../../src/envelope/categories.ts';
import { parseDsn } from '../../src/envelope/dsn.ts';
import { parseEnvelope } from '../../src/envelope/parse.ts';
import { parseRateLimits } from '../../src/envelope/rate-limit-header.ts';
import { typeLabel } from '../../src/ops/metrics.ts';
import { AUTHORIZE_CACHE_SIZE, createAuthorizer } from '../../src/pipeline/authorize.ts';
import { clientReportItem, OutcomeAggregator } from '../../src/pipeline/client-report.ts';
import { createFilter } from '../../src/pipeline/filter.ts';
import { identityHeaders } from '../../src/pipeline/identity.ts';
import { RateLimits } from '../../src/pipeline/rate-limit.ts';

const parse = (body: Buffer) =>
  parseEnvelope(body, { maxHeaderBytes: 65536, maxItems: 1000, maxEventItemBytes: 1 << 20 });
const DSN = 'https://key@o1.ingest.sentry.io/42';
const dsn = (text: string) => parseDsn(text) as Exclude<ReturnType<typeof parseDsn>, string>;

describe('authorize', () => {
  const authorize = createAuthorizer({ allowedDsns: [dsn(DSN)], loopbackPorts: [] });
  const caught = (run: () => unknown) => {
    try {
      run();
    } catch (e) {
      return e as RelayError;
    }
    return undefined;
  };

  it('accepts an allowlisted DSN (the secret does not matter) and labels its project', () => {
    expect(authorize({ dsn: DSN }).project).toBe('42');
    expect(authorize({ dsn: 'https://key:secret@O1.ingest.sentry.io/42' }).dsn.key).toBe(DSN);
  });

  it('decides each envelope by its own DSN when allowed and refused ones alternate or repeat', () => {
    const other = 'https://other@o1.ingest.sentry.io/42';
    for (const text of [DSN, DSN, other, other, DSN, other, DSN]) {
      if (text === DSN) expect(authorize({ dsn: text }).project).toBe('42');
      else expect(caught(() => authorize({ dsn: text }))?.code).toBe('dsn_not_allowed');
    }
  });

  it.each([
    ['no dsn', {}, 400, 'missing_dsn', /has no "dsn"/],
    ['a dsn that is not a string', { dsn: 42 }, 403, 'invalid_dsn', /must be a string/],
    ['an unparsable dsn', { dsn: 'nonsense' }, 403, 'invalid_dsn', /is not a URL/],
    ['broken percent-encoding', { dsn: 'https://k%E0%A4%A@o1.ingest.sentry.io/42' }, 403, 'invalid_dsn', /"%"/],
    ['another project', { dsn: 'https://key@o1.ingest.sentry.io/43' }, 403, 'dsn_not_allowed', /not allowed/],
    ['another key', { dsn: 'https://other@o1.ingest.sentry.io/42' }, 403, 'dsn_not_allowed', /not allowed/],
    ['the key percent-encoded', { dsn: 'https://%6Bey@o1.ingest.sentry.io/42' }, 403, 'dsn_not_allowed', /not allowed/],
    ['another host', { dsn: 'https://key@evil.example.com/42' }, 403, 'dsn_not_allowed', /not allowed/],
    ['another scheme', { dsn: 'http://key@o1.ingest.sentry.io/42' }, 403, 'dsn_not_allowed', /not allowed/],
    ['a loopback DSN (allowlist set)', { dsn: 'http://key@127.0.0.1:9000/1' }, 403, 'dsn_not_allowed', /not allowed/],
  ])('refuses %s', (_name, header, status, code, detail) => {
    const error = caught(() => authorize(header));
    expect([error?.statusCode, error?.code, error?.message]).toEqual([status, code, expect.stringMatching(detail)]);
  });

  it.each([
    ['the listed port', 'http://key@127.0.0.1:8969/1', 'loopback'],
    ['localhost, listed port', 'http://key@localhost:8969/1', 'loopback'],
    ['the scheme default when listed (http → 80)', 'http://key@[::1]/1', 'loopback'],
    [
      'another loopback port',
      'http://key@127.0.0.1:6379/1',
      /port 6379 on a loopback host; .* port\(s\) 8969, 80 only/,
    ],
    ['the https default, not listed', 'https://key@localhost/1', /port 443/],
    ['a non-loopback host', 'https://key@o1.ingest.sentry.io/42', /not allowed/],
  ])('in development mode (ports 8969, 80) takes %s', (_name, text, expected) => {
    const dev = createAuthorizer({ allowedDsns: [], loopbackPorts: [8969, 80] });
    if (typeof expected === 'string') expect(dev({ dsn: text }).project).toBe(expected);
    else expect(caught(() => dev({ dsn: text }))?.message).toMatch(expected);
  });

  it('ignores loopback ports when an allowlist is set', () => {
    const both = createAuthorizer({ allowedDsns: [dsn(DSN)], loopbackPorts: [8969] });
    expect(caught(() => both({ dsn: 'http://key@127.0.0.1:8969/1' }))?.code).toBe('dsn_not_allowed');
  });

  it('keeps only accepted DSNs: a flood of refused ones leaves the decisions in use alone', () => {
    const authorizeAgain = createAuthorizer({
      allowedDsns: [dsn(DSN), dsn('https://idle@o1.ingest.sentry.io/7')],
      loopbackPorts: [],
    });
    const busy = authorizeAgain({ dsn: DSN });
    const idle = authorizeAgain({ dsn: 'https://idle@o1.ingest.sentry.io/7' });
    for (let i = 0; i < 3 * AUTHORIZE_CACHE_SIZE; i++) {
      expect(caught(() => authorizeAgain({ dsn: `https://junk${i}@evil.example.com/1` }))?.code).toBe(
        'dsn_not_allowed',
      );
      if (i % 100 === 0) expect(authorizeAgain({ dsn: DSN })).toBe(busy); // a hit: the same decision object
    }
    expect(authorizeAgain({ dsn: DSN })).toBe(busy);
    expect(authorizeAgain({ dsn: 'https://idle@o1.ingest.sentry.io/7' })).toBe(idle); // never evicted by refusals
  });

  it('decides every spelling of an allowed DSN once per normalized key, however many secrets a client tries', () => {
    const authorizeAgain = createAuthorizer({ allowedDsns: [dsn(DSN)], loopbackPorts: [] });
    const first = authorizeAgain({ dsn: DSN });
    for (let i = 0; i < 3 * AUTHORIZE_CACHE_SIZE; i++) {
      expect(authorizeAgain({ dsn: `https://key:secret${i}@O1.ingest.sentry.io/42` })).toBe(first);
    }
  });

  it('refuses a 60 KB DSN before parsing it, and quotes none of it', () => {
    const long = `https://${'<'.repeat(60_000)}@o0.ingest.example/2`;
    const error = caught(() => authorize({ dsn: long }));
    expect([error?.code, error?.message]).toEqual([
      'invalid_dsn',
      "the envelope header's dsn is 60028 characters long; a DSN has at most 512",
    ]);
  });
});

describe('filter', () => {
  const filter = createFilter(ignoreRules);
  const session = { header: { type: 'session' }, payload: '{"sid":"a"}' };
  const feedback = { header: { type: 'feedback' }, payload: '{"contexts":{"feedback":{"message":"Script error."}}}' };

  it('keeps an envelope with no ignored event as it is (same items array)', () => {
    const parsed = parse(envelope({ dsn: DSN }, [eventItem(), session]));
    const result = filter(parsed);
    expect(result.items).toBe(parsed.items);
    expect(result.discarded).toEqual([]);
  });

  it('drops an ignored event with its attachments, keeps the rest, counts the outcomes', () => {
    const parsed = parse(
      envelope({ dsn: DSN }, [
        eventItem(errorEvent('ResizeObserver loop limit exceeded', 'Error')),
        attachmentItem(Buffer.alloc(100)),
        attachmentItem(Buffer.alloc(50)),
        session,
        feedback,
      ]),
    );
    const result = filter(parsed);
    expect(result.items.map((i) => i.type)).toEqual(['session', 'feedback']);
    expect(result.dropped).toEqual([
      { type: 'event', rule: 'resize-observer-loop-limit' },
      { type: 'attachment', rule: 'resize-observer-loop-limit' },
      { type: 'attachment', rule: 'resize-observer-loop-limit' },
    ]);
    expect(result.discarded).toEqual([
      { reason: 'filtered', category: 'error', quantity: 1 },
      { reason: 'filtered', category: 'attachment', quantity: 150 },
      { reason: 'filtered', category: 'attachment_item', quantity: 2 },
    ]);
  });

  it.each([
    ['a message', { message: 'Script error.' }, true],
    ['an exception value', errorEvent('ResizeObserver loop limit exceeded'), true],
    ['an escaped literal', '{"message":"Script\\u0020error."}', true],
    ['an error mentioning a literal elsewhere', errorEvent('Script error. happened while loading'), false],
    ['invalid JSON holding a literal', '{"message":"Script error."', false],
  ])('%s → dropped: %s', (_name, event, dropped) => {
    const payload = typeof event === 'string' ? event : JSON.stringify(event);
    const result = filter(parse(envelope({ dsn: DSN }, [{ header: { type: 'event' }, payload }])));
    expect(result.items.length === 0).toBe(dropped);
  });

  it.each([
    ['127 levels: parsed and dropped', 126, 'dropped'],
    [
      '128 levels: refused before JSON.parse',
      127,
      /the event item at offset \d+ nests arrays\/objects deeper than 127 levels/,
    ],
  ])('an event it would parse, nested %s', (_name, arrays, expected) => {
    const payload = `{"message":"Script error.","extra":${'['.repeat(arrays)}${']'.repeat(arrays)}}`;
    const parsed = unparsed(payload);
    if (expected === 'dropped') expect(filter(parsed).items).toEqual([]);
    else expect(() => filter(parsed)).toThrow(expected);
  });

  // parseEnvelope refuses event payloads nested deeper than Relay's limit (envelope.test.ts); the filter keeps its
  // own check for envelopes made otherwise.
  const unparsed = (payload: string) => {
    const item = Buffer.from(payload);
    const line = Buffer.from('{"type":"event"}');
    const headerBytes = Buffer.from(JSON.stringify({ dsn: DSN }));
    const bytes = Buffer.concat([headerBytes, Buffer.from('\n'), line, Buffer.from('\n'), item]);
    const payloadView = bytes.subarray(bytes.length - item.length);
    return {
      bytes,
      header: { dsn: DSN },
      headerBytes,
      items: [{ type: 'event', header: { type: 'event' }, headerBytes: line, payload: payloadView }],
    };
  };

  it('does not look at the nesting of an event it has no reason to parse', () => {
    const payload = `{"message":"fine","extra":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const parsed = unparsed(payload);
    expect(filter(parsed).items).toBe(parsed.items);
  });

  it('builds client_report items and sums outcomes of whole dropped envelopes', () => {
    const item = clientReportItem([{ reason: 'filtered', category: 'error', quantity: 2 }], 1_700_000_000_000);
    expect(JSON.parse(item.payload.toString())).toEqual({
      timestamp: 1_700_000_000,
      discarded_events: [{ reason: 'filtered', category: 'error', quantity: 2 }],
    });
    const outcomes = new OutcomeAggregator<string>();
    outcomes.add(DSN, 'target', [{ reason: 'filtered', category: 'error', quantity: 1 }]);
    outcomes.add(DSN, 'target', [{ reason: 'filtered', category: 'error', quantity: 2 }]);
    const [sent, ...rest] = outcomes.take(1_700_000_000_000);
    expect(rest).toEqual([]);
    const report = parse(sent?.bytes as Buffer);
    expect(report.header.dsn).toBe(DSN);
    expect(JSON.parse(report.items[0]?.payload.toString() ?? '')).toMatchObject({
      discarded_events: [{ reason: 'filtered', category: 'error', quantity: 3 }],
    });
    expect(outcomes.take()).toEqual([]);
  });
});

describe('rate limits', () => {
  const now = 1_000_000;
  it.each([
    [
      'categories and scope',
      200,
      { 'x-sentry-rate-limits': '60:error;transaction:key:quota' },
      [{ categories: ['error', 'transaction'], seconds: 60, scope: 'key', reason: 'quota' }],
    ],
    [
      'empty categories = all',
      200,
      { 'x-sentry-rate-limits': '30::organization' },
      [{ categories: [], seconds: 30, scope: 'organization', reason: '' }],
    ],
    ['only unknown categories: ignored', 429, { 'x-sentry-rate-limits': '30:bogus:key' }, []],
    [
      'unknown ones dropped',
      429,
      { 'x-sentry-rate-limits': '30:bogus;span:key' },
      [{ categories: ['span'], seconds: 30, scope: 'key', reason: '' }],
    ],
    [
      'non-numeric retry → 60 s',
      429,
      { 'x-sentry-rate-limits': 'soon::key' },
      [{ categories: [], seconds: 60, scope: 'key', reason: '' }],
    ],
    ['Retry-After on 429', 429, { 'retry-after': '17' }, [{ categories: [], seconds: 17, scope: 'key', reason: '' }]],
    ['bare 429 → 60 s', 429, {}, [{ categories: [], seconds: 60, scope: 'key', reason: '' }]],
    ['Retry-After on a 503 is not a rate limit', 503, { 'retry-after': '17' }, []],
  ])('parses %s', (_name, status, headers, expected) => {
    expect(parseRateLimits(status, headers, now)).toEqual(expected);
  });

  it('drops limited categories, keeps the longest limit, expires, and describes itself to the SDK', () => {
    const limits = new RateLimits();
    const parsed = parse(
      envelope({ dsn: DSN }, [
        eventItem(),
        { header: { type: 'session' }, payload: '{}' },
        { header: { type: 'client_report' }, payload: '{}' },
      ]),
    );
    limits.update(DSN, parseRateLimits(429, { 'x-sentry-rate-limits': '60:error:key:quota, 10:error:key' }, now), now);
    const decision = limits.apply(DSN, parsed.items, now + 1000);
    expect(decision.items.map((i) => i.type)).toEqual(['session', 'client_report']);
    expect(decision.discarded).toEqual([{ reason: 'ratelimit_backoff', category: 'error', quantity: 1 }]);
    expect(limits.headers(DSN, now + 1000)).toEqual({
      'retry-after': '59',
      'x-sentry-rate-limits': '59:error:key:quota',
    });
    expect(limits.apply('https://other@h/1', parsed.items, now).items).toBe(parsed.items);
    expect(limits.activeCount(now)).toBe(1);
    expect(limits.apply(DSN, parsed.items, now + 61_000).items).toHaveLength(3);
    expect(limits.headers(DSN, now + 61_000)).toEqual({});
  });

  it('an all-category limit holds back everything but client reports', () => {
    const limits = new RateLimits();
    limits.update(DSN, [{ categories: [], seconds: 5, scope: 'key', reason: '' }], now);
    const parsed = parse(
      envelope({ dsn: DSN }, [
        eventItem(),
        { header: { type: 'mystery' }, payload: '' },
        { header: { type: 'client_report' }, payload: '{}' },
      ]),
    );
    expect(limits.apply(DSN, parsed.items, now).items.map((i) => i.type)).toEqual(['client_report']);
  });
});

describe('item types: one list for rate limits and metric labels', () => {
  it.each([...KNOWN_ITEM_TYPES])('%s has a category (client reports: internal) and is its own metric label', (type) => {
    expect(itemCategory(type)).toBeDefined();
    expect(typeLabel(type)).toBe(type);
  });

  it.each(['integration', 'made_up', ''])('%j is labelled unknown and has no category', (type) => {
    expect(typeLabel(type)).toBe('unknown');
    expect(itemCategory(type)).toBeUndefined();
  });
});

describe('identity', () => {
  it('forwards the client IP and browser headers, never cookies or Authorization', () => {
    const headers = identityHeaders('203.0.113.7', {
      'user-agent': 'Mozilla/5.0',
      origin: 'https://shop.example.com',
      referer: 'https://shop.example.com/items',
      cookie: 'session=secret',
      authorization: 'Bearer secret',
      'x-forwarded-for': '198.51.100.1',
      'sec-ch-ua-platform': '"Linux"',
    });
    expect(headers).toEqual({
      'x-sentry-forwarded-for': '203.0.113.7',
      'user-agent': 'Mozilla/5.0',
      origin: 'https://shop.example.com',
      referer: 'https://shop.example.com/',
      'sec-ch-ua-platform': '"Linux"',
    });
  });

  it.each([
    ['a path and query: the origin only', 'https://shop.example.com/reset?token=abc123#x', 'https://shop.example.com/'],
    ['a port kept', 'http://localhost:3000/account/jane@example.com', 'http://localhost:3000/'],
    ['not a URL: dropped', 'not a url ?password=hunter2', undefined],
    ['an opaque origin: dropped', 'data:text/html,password=hunter2', undefined],
  ])('sends Referer cut to its origin: %s', (_name, referer, expected) => {
    expect(identityHeaders('203.0.113.7', { referer }).referer).toBe(expected);
  });
});
