// The envelope parser and its helpers (DSN, depth, timestamps, serialization), one table row per input.
import { timeBlock } from '@app/test-kit';
import { describe, expect, it } from 'vitest';
import { RelayError } from '../../src/core/errors.ts';
import { envelopeEndpoint, isLoopbackHost, parseDsn } from '../../src/envelope/dsn.ts';
import { exceedsDepth } from '../../src/envelope/json-depth.ts';
import { parseEnvelope, parseEnvelopeHeader } from '../../src/envelope/parse.ts';
import { isRelayTimestamp } from '../../src/envelope/rfc3339.ts';
import { shiftSentAt } from '../../src/envelope/sent-at.ts';
import { createItem, serializeEnvelope } from '../../src/envelope/serialize.ts';

const limits = { maxHeaderBytes: 64 * 1024, maxItems: 100, maxEventItemBytes: 1024 };
const parse = (text: string | Buffer) => parseEnvelope(Buffer.isBuffer(text) ? text : Buffer.from(text), limits);
const H = '{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc","dsn":"https://k@o1.ingest.sentry.io/42"}';
const payloads = (text: string) => parse(text).items.map((item) => [item.type, item.payload.toString('latin1')]);
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof RelayError) return [error.statusCode, error.message];
    throw error;
  }
  return undefined;
};

describe('parseEnvelope: the spec cases', () => {
  it.each([
    ['header only, no newline', H, []],
    ['header only, trailing newline', `${H}\n`, []],
    ['JSON item without length, last without newline', `${H}\n{"type":"event"}\n{"a":1}`, [['event', '{"a":1}']]],
    ['JSON item without length, trailing newline', `${H}\n{"type":"event"}\n{"a":1}\n`, [['event', '{"a":1}']]],
    ['item with length', `${H}\n{"type":"attachment","length":3}\nabc`, [['attachment', 'abc']]],
    ['length item then newline', `${H}\n{"type":"attachment","length":3}\nabc\n`, [['attachment', 'abc']]],
    [
      'length payload holding newlines',
      `${H}\n{"type":"attachment","length":5}\na\nb\nc\n{"type":"session"}\n{}`,
      [
        ['attachment', 'a\nb\nc'],
        ['session', '{}'],
      ],
    ],
    [
      '\\r is payload',
      `${H}\n{"type":"event"}\n{"a":1}\r\n{"type":"session"}\n{}`,
      [
        ['event', '{"a":1}\r'],
        ['session', '{}'],
      ],
    ],
    [
      'empty payload without length',
      `${H}\n{"type":"session"}\n\n{"type":"event"}\n{}`,
      [
        ['session', ''],
        ['event', '{}'],
      ],
    ],
    [
      'empty payload with length 0',
      `${H}\n{"type":"attachment","length":0}\n\n{"type":"event"}\n{}`,
      [
        ['attachment', ''],
        ['event', '{}'],
      ],
    ],
    ['last item header at EOF, no payload', `${H}\n{"type":"client_report"}`, [['client_report', '']]],
    ['unknown item type kept', `${H}\n{"type":"future_thing","x":[1]}\n???`, [['future_thing', '???']]],
    ['"length": null is no length', `${H}\n{"type":"event","length":null}\n{}`, [['event', '{}']]],
    // Relay's item parser skips whitespace before an item header (serde_json's stream parser does).
    [
      'blank lines and spaces before an item header',
      `${H}\n{"type":"event"}\n{}\n\n \t{"type":"session"}\n{}`,
      [
        ['event', '{}'],
        ['session', '{}'],
      ],
    ],
  ])('%s', (_name, text, expected) => {
    expect(payloads(text)).toEqual(expected);
  });

  it('keeps header lines and unknown keys byte for byte, and payloads as views', () => {
    const text = `${H.slice(0, -1)},"future":{"k":[1,2]}}\n{"type":"event","unknown":true}\n{"x":"é"}`;
    const body = Buffer.from(text);
    const envelope = parse(body);
    expect(envelope.headerBytes.toString()).toBe(text.split('\n')[0]);
    expect(envelope.header.future).toEqual({ k: [1, 2] });
    expect(envelope.items[0]?.headerBytes.toString()).toBe('{"type":"event","unknown":true}');
    expect(envelope.items[0]?.payload.buffer).toBe(body.buffer);
    expect(serializeEnvelope(envelope, envelope.items).equals(body)).toBe(true);
  });

  it('keeps binary payloads intact', () => {
    const binary = Buffer.from([0x00, 0x0a, 0xff, 0x0d, 0x0a, 0x1f, 0x8b]);
    const body = Buffer.concat([Buffer.from(`${H}\n{"type":"replay_recording","length":${binary.length}}\n`), binary]);
    expect(parse(body).items[0]?.payload.equals(binary)).toBe(true);
  });
});

describe('parseEnvelope: malformed input says what and where', () => {
  it.each([
    ['empty header line', '\n{"type":"event"}\n{}', 400, /line 1\) is empty/],
    ['header not JSON', '{"dsn":\n', 400, /envelope header \(line 1, offset 0\): not valid JSON/],
    ['header not an object', '[1,2]', 400, /must be a JSON object/],
    ['bad event_id', '{"event_id":"nope"}', 400, /"event_id" must be a UUID .*, got "nope"/],
    ['dsn twice', '{"dsn":"https://a@h/1","x":"dsn","dsn":"https://b@evil/2"}\n', 400, /"dsn" appears more than once/],
    [
      'dsn twice, once \\u-escaped',
      '{"dsn":"https://a@h/1","\\u0064sn":"https://b@evil/2"}',
      400,
      /as "dsn" and "\\u0064sn"/,
    ],
    [
      'sent_at twice',
      '{"sent_at":"2026-11-22T00:00:00Z", "sent_at" :"2020-01-01T00:00:00Z"}\n',
      400,
      /"sent_at" appears/,
    ],
    [
      'sent_at without a time zone',
      '{"sent_at":"2026-11-22T00:00:00"}',
      400,
      /"sent_at" must be an RFC 3339 timestamp/,
    ],
    ['header ending in \\r', `${H}\r\n{"type":"event"}\n{}`, 400, /line 1, offset 0\): ends with "\\r"/],
    ['a space after the header', `${H} \n`, 400, /has whitespace after its JSON object/],
    ['a browser-set client address', '{"forwarded_for":"1.2.3.4"}', 400, /"forwarded_for" is request metadata/],
    ['item header not JSON', `${H}\n{type:event}\n{}`, 400, /item 1 header \(offset 89\): not valid JSON/],
    ['item without type', `${H}\n{"length":2}\n{}`, 400, /item 1 header \(offset 89\): "type" is missing/],
    [
      'negative length',
      `${H}\n{"type":"attachment","length":-1}\n`,
      400,
      /"length" must be an integer from 0 to 4294967295/,
    ],
    [
      'length written 2.0',
      `${H}\n{"type":"attachment","length":2.0}\nab`,
      400,
      /"length" must be written as an integer, got 2.0/,
    ],
    ['length twice', `${H}\n{"type":"attachment","length":1,"length":3}\nabc`, 400, /"length" appears more than once/],
    ['an internal item type', `${H}\n{"type":"integration"}\n{}`, 400, /type "integration" is internal/],
    [
      'length past the end',
      `${H}\n{"type":"attachment","length":10}\nabc`,
      400,
      /declares length 10 but only 3 bytes remain/,
    ],
    [
      'no newline after length payload',
      `${H}\n{"type":"attachment","length":2}\nabc`,
      400,
      /after its 2-byte payload, at offset 124/,
    ],
    [
      'length but nothing after header',
      `${H}\n{"type":"attachment","length":2}`,
      400,
      /declares length 2 but only 0 bytes/,
    ],
    // This was accepted before; Relay refuses it (its item parser finds no item after the whitespace).
    ['several trailing newlines', `${H}\n{"type":"event"}\n{}\n\n\n`, 400, /only whitespace follows offset 109/],
    [
      'event item over the limit',
      `${H}\n{"type":"event"}\n{"a":"${'x'.repeat(2000)}"}`,
      413,
      /item 1 \(event\) has 2008 bytes/,
    ],
  ])('%s', (_name, text, status, detail) => {
    expect(refusal(() => parse(text))).toEqual([status, expect.stringMatching(detail)]);
  });

  it('bounds the item count, the header lines one by one and all together', () => {
    expect(refusal(() => parse(`${H}${'\n{"type":"session"}\n{}'.repeat(101)}`))?.[1]).toMatch(/more than 100 items/);
    expect(refusal(() => parse(`{"x":"${'a'.repeat(70_000)}"}`))).toEqual([
      413,
      expect.stringMatching(/longer than 65536/),
    ]);
    const longItem = `${H}\n{"type":"event","x":"${'a'.repeat(9000)}"}\n{}`;
    expect(refusal(() => parse(longItem))).toEqual([413, 'item 1 header at offset 89 is longer than 8192 bytes']);
    expect(parseEnvelope(Buffer.from(longItem), { ...limits, maxItemHeaderBytes: 10_000 }).items).toHaveLength(1);
    const many = `${H}${`\n{"type":"session","pad":"${'p'.repeat(3000)}"}\n{}`.repeat(90)}`;
    expect(refusal(() => parse(many))).toEqual([413, expect.stringMatching(/header lines add up to more than 262144/)]);
  });

  it('refuses hostile nesting in header lines before parsing them (300 item headers of 64 KiB of "[…]")', () => {
    const nested = `{"type":"event","x":${'['.repeat(32_000)}${']'.repeat(32_000)}}`;
    const body = Buffer.from(`${H}${`\n${nested}\n{}`.repeat(300)}`);
    const hostile = { ...limits, maxItems: 1000, maxItemHeaderBytes: 64 * 1024, maxTotalHeaderBytes: 64 * 1024 * 1024 };
    let refused: ReturnType<typeof refusal>;
    // Timed without the time this thread waited for a CPU: the margin is generous, the load on the machine left out.
    expect(timeBlock(() => (refused = refusal(() => parseEnvelope(body, hostile))))).toBeLessThan(50);
    expect(refused?.[1]).toMatch(/item 1 header .*deeper than 127 levels/);
  });

  it.each([
    ['event', 128, 400],
    ['event', 127, 200],
    ['transaction', 128, 400],
    ['attachment', 128, 200], // bytes, not JSON: Relay does not parse attachments
  ])('refuses a %s payload nested %i levels as Relay would (127 pass)', (type, depth, status) => {
    const payload = `{"extra":{"a":${'['.repeat(depth - 2)}${']'.repeat(depth - 2)}}}`;
    const envelope = `${H}\n{"type":"${type}"}\n${payload}`;
    const answer = refusal(() => parse(envelope));
    if (status === 200) expect(answer).toBeUndefined();
    else
      expect(answer).toEqual([
        400,
        `item 1 (${type}) nests arrays/objects deeper than 127 levels (Sentry's parser refuses it)`,
      ]);
  });

  it("refuses the issue's 400 000-level event payload (≈800 KB) within milliseconds", () => {
    const payload = `{"extra":{"a":${'['.repeat(400_000)}${']'.repeat(400_000)}}}`;
    const body = Buffer.from(`${H}\n{"type":"event"}\n${payload}`);
    let refused: ReturnType<typeof refusal>;
    const roomy = { ...limits, maxEventItemBytes: 1024 * 1024 };
    expect(timeBlock(() => (refused = refusal(() => parseEnvelope(body, roomy))))).toBeLessThan(50);
    expect(refused?.[1]).toMatch(/item 1 \(event\) nests .* deeper than 127 levels/);
  });
});

describe('parseEnvelope: item header lines seen before', () => {
  it('parses a repeated line to the same header each time, and refuses a refused one each time', () => {
    const event = `${H}\n{"type":"event"}\n{}`;
    expect(parse(event).items[0]?.header).toEqual({ type: 'event' });
    expect(parse(event).items[0]?.header).toEqual({ type: 'event' });
    expect(parse(`${H}\n{"type":"attachment","length":2}\nab`).items[0]?.header).toEqual({
      type: 'attachment',
      length: 2,
    });
    const twice = `${H}\n{"type":"event","type":"event"}\n{}`;
    expect(refusal(() => parse(twice))).toEqual([400, expect.stringMatching(/"type" appears more than once/)]);
    expect(refusal(() => parse(twice))).toEqual([400, expect.stringMatching(/"type" appears more than once/)]);
  });

  it('keeps parsing right past the number of lines it remembers', () => {
    for (let i = 0; i < 600; i++) {
      const line = `{"type":"attachment","filename":"f${i}"}`;
      expect(parse(`${H}\n${line}\n{}`).items[0]?.header).toEqual({ type: 'attachment', filename: `f${i}` });
    }
    expect(parse(`${H}\n{"type":"event"}\n{}`).items[0]?.header).toEqual({ type: 'event' });
  });
});

describe('parseEnvelope: the one payload it decodes for the stages', () => {
  it('decodes the first event-like payload of up to 64 KiB as latin1, and no other', () => {
    const roomy = { ...limits, maxEventItemBytes: 1024 * 1024 };
    const event = '{"message":"caf\u00e9 \u20ac"}';
    const body = Buffer.from(`${H}\n{"type":"attachment"}\nab\n{"type":"event"}\n${event}\n{"type":"transaction"}\n{}`);
    const items = parseEnvelope(body, roomy).items;
    expect(items.map((item) => item.latin1)).toEqual([undefined, Buffer.from(event).toString('latin1'), undefined]);
    const large = `{"m":"${'x'.repeat(64 * 1024)}"}`;
    expect(parseEnvelope(Buffer.from(`${H}\n{"type":"event"}\n${large}`), roomy).items[0]?.latin1).toBeUndefined();
  });
});

describe('parseEnvelopeHeader: the header line alone, before the body has arrived', () => {
  it('returns the header, and parseEnvelope takes it instead of parsing the line again', () => {
    const line = Buffer.from(H);
    const header = parseEnvelopeHeader(line, limits);
    expect(header).toEqual({ event_id: '9ec79c33ec9942ab8353589fcb2e04dc', dsn: 'https://k@o1.ingest.sentry.io/42' });
    const body = Buffer.from(`${H}\n{"type":"event"}\n{}`);
    expect(parseEnvelope(body, limits, header).header).toBe(header);
  });

  it.each([
    ['too long', Buffer.from(`{"x":"${'a'.repeat(70_000)}"}`), 413, /line 1\) is longer than 65536 bytes/],
    ['not UTF-8', Buffer.from([0x7b, 0x22, 0x78, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]), 400, /not valid UTF-8/],
    ['a lone surrogate', Buffer.from('{"x":"\\ud800"}'), 400, /half of a surrogate pair/],
    ['128 levels', Buffer.from(`{"trace":${'['.repeat(127)}${']'.repeat(127)}}`), 400, /deeper than 127 levels/],
    // The depth check reads a broken `\u` escape as exceedsDepth does: its string ends at the next quote.
    ['a broken \\u escape, then 128 levels', Buffer.from(`{"a":"\\u",${'['.repeat(128)}`), 400, /deeper than 127/],
    ['dsn not a string', Buffer.from('{"dsn":42}'), 400, /"dsn" must be a string, got 42/],
    ['version 7.0', Buffer.from('{"version":7.0}'), 400, /"version" must be written as an integer, got 7.0/],
  ])('refuses a header line %s', (_name, line, status, detail) => {
    expect(refusal(() => parseEnvelopeHeader(line, limits))).toEqual([status, expect.stringMatching(detail)]);
  });

  it.each([
    ['127 levels', `{"trace":${'['.repeat(126)}${']'.repeat(126)}}`],
    ['a repeated unknown key (the last counts, as in Relay)', '{"sdk":1,"sdk":2}'],
    ['a braced event id', '{"event_id":"{9ec79c33-ec99-42ab-8353-589fcb2e04dc}"}'],
    ['a URN event id', '{"event_id":"urn:uuid:9ec79c33-ec99-42ab-8353-589fcb2e04dc"}'],
    ['null for optional fields', '{"event_id":null,"sent_at":null}'],
    ['whitespace before and inside', ' { "sent_at" : "2012-12-12 12:12:12+0200" }'],
    ['a surrogate pair', '{"x":"\\ud83d\\ude00"}'],
  ])('accepts %s', (_name, line) => {
    expect(parseEnvelopeHeader(Buffer.from(line), limits)).toEqual(JSON.parse(line));
  });
});

describe('exceedsDepth', () => {
  // A table of cases, alike in shape to other functions' tables on purpose (`duplicates` pairs them).
  it.each([
    ['flat', '{"a":1}', 1, false],
    ['exactly the limit', '[[[]]]', 3, false],
    ['one more', '[[[[]]]]', 3, true],
    ['brackets inside strings', '{"a":"[[[[[[","b":"\\"[[[["}', 1, false],
    ['closing more than opened stops counting', ']][[[[', 3, false],
    ['objects and arrays alike', '{"a":[{"b":[1]}]}', 3, true],
  ])('%s', (_name, text, max, expected) => {
    expect(exceedsDepth(Buffer.from(text), 0, text.length, max)).toBe(expected);
  });
});

describe("isRelayTimestamp: chrono's relaxed RFC 3339, as Relay reads sent_at", () => {
  // A table of cases, alike in shape to other functions' tables on purpose (`duplicates` pairs them).
  it.each([
    ['2026-11-22T01:00:00.000Z', true],
    ['2026-11-22t01:00:00z', true],
    ['2026-11-22 01:00:00+02:00', true],
    ['2026-11-22T01:00:00-0530', true],
    ['2026-11-22T01:00:00.123456789123UTC', true],
    ['2026-1-2T3:4:5Z', true],
    ['2016-12-31T23:59:60Z', true],
    ['2024-02-29T00:00:00Z', true],
    ['2026-11-22T01:00:00', false],
    ['2026-11-22', false],
    ['1795000000', false],
    ['2023-02-29T00:00:00Z', false],
    ['2026-13-01T00:00:00Z', false],
    ['2026-11-22T24:00:00Z', false],
    ['2026-11-22T01:00:00+24:00', false],
    ['2026-11-22T01:00:00Z trailing', false],
    ['yesterday', false],
  ])('%s → %s', (text, expected) => {
    expect(isRelayTimestamp(text)).toBe(expected);
  });
});

describe('serialize', () => {
  it('rewrites only the item list and adds items with a length', () => {
    const envelope = parse(`${H}\n{"type":"event"}\n{"a":1}\n{"type":"session"}\n{"s":1}`);
    const added = createItem({ type: 'client_report' }, Buffer.from('{"x":"\\n"}'));
    const out = serializeEnvelope(envelope, [envelope.items[1] as never, added]);
    expect(out.toString()).toBe(`${H}\n{"type":"session"}\n{"s":1}\n{"type":"client_report","length":10}\n{"x":"\\n"}`);
    expect(payloads(out.toString())).toEqual([
      ['session', '{"s":1}'],
      ['client_report', '{"x":"\\n"}'],
    ]);
  });
});

describe('shiftSentAt', () => {
  it('moves sent_at forward by the time held and keeps every other byte', () => {
    const body = Buffer.from('{"dsn":"x","sent_at":"2026-11-22T01:00:00.000Z","z":1}\n{"type":"event"}\n{}');
    const out = shiftSentAt(body, 2 * 3600_000).toString();
    expect(out).toBe('{"dsn":"x","sent_at":"2026-11-22T03:00:00.000Z","z":1}\n{"type":"event"}\n{}');
  });
  it('leaves envelopes without sent_at alone', () => {
    const body = Buffer.from('{"dsn":"x"}\n{"type":"event"}\n{}');
    expect(shiftSentAt(body, 1000)).toBe(body);
  });
});

describe('DSN', () => {
  it.each([
    ['https://key@o1.ingest.sentry.io/42', 'https://key@o1.ingest.sentry.io/42', '42', 443],
    ['http://key:secret@LOCALHOST:9000/sentry/7', 'http://key@localhost:9000/sentry/7', '7', 9000],
    ['http://k%C3%A9y@[::1]/1', 'http://k%C3%A9y@[::1]/1', '1', 80],
  ])('parses %s', (text, key, project, port) => {
    const dsn = parseDsn(text);
    expect(typeof dsn === 'object' && [dsn.key, dsn.projectId, dsn.port]).toEqual([key, project, port]);
  });
  it.each([
    ['nonsense', 'is not a URL'],
    ['not a url', 'must be printable ASCII without spaces or control characters'],
    ['https://ké@h/1', 'must be printable ASCII without spaces or control characters'],
    ['https://k\u0001@h/1', 'must be printable ASCII without spaces or control characters'],
    [`https://${'a'.repeat(510)}@h/1`, 'is 522 characters long; a DSN has at most 512'],
    [
      `https://${'<'.repeat(22)}@h/1`,
      "has a public key of 66 characters (URL-escaped); Sentry's keys are 32, at most 64 are accepted",
    ],
    ['ftp://k@h/1', 'must use http or https'],
    ['https://h/1', 'has no public key'],
    ['https://k@h/abc', 'must end with a numeric project id'],
    ['https://k@h/1?x=1', 'must not have a query or fragment'],
    [
      'https://e12d836b15bb49d7bbf99e642%E0%A4%A@o1.ingest.sentry.io/42',
      'has a public key with a "%" not followed by two hex digits',
    ],
    ['https://k%@h/1', 'has a public key with a "%" not followed by two hex digits'],
    ['https://k%zz@h/1', 'has a public key with a "%" not followed by two hex digits'],
  ])('refuses %s', (text, problem) => {
    expect(parseDsn(text)).toBe(problem);
  });
  it('builds the envelope endpoint with the key in the query', () => {
    const dsn = parseDsn('http://key@localhost:9000/sentry/7');
    expect(typeof dsn === 'object' && envelopeEndpoint(dsn)).toBe(
      'http://localhost:9000/sentry/api/7/envelope/?sentry_version=7&sentry_key=key',
    );
  });
  // A table of cases, alike in shape to other functions' tables on purpose (`duplicates` pairs them).
  it.each([
    ['127.0.0.1:9000', true],
    ['localhost', true],
    ['app.localhost', true],
    ['[::1]:80', true],
    ['sentry.io', false],
    ['127.example.com', false],
  ])('loopback host %s → %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});
