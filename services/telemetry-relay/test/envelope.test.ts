import { describe, expect, it } from 'vitest';
import { envelopeEndpoint, isLoopbackHost, parseDsn } from '../src/envelope/dsn.ts';
import { parseEnvelope } from '../src/envelope/parse.ts';
import { shiftSentAt } from '../src/envelope/sent-at.ts';
import { createItem, serializeEnvelope } from '../src/envelope/serialize.ts';
import { RelayError } from '../src/pipeline/errors.ts';

const limits = { maxHeaderBytes: 64 * 1024, maxItems: 100, maxEventItemBytes: 1024 };
const parse = (text: string | Buffer) => parseEnvelope(Buffer.isBuffer(text) ? text : Buffer.from(text), limits);
const H = '{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc","dsn":"https://k@o1.ingest.sentry.io/42"}';
const payloads = (text: string) => parse(text).items.map((item) => [item.type, item.payload.toString('latin1')]);

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
    ['several trailing newlines', `${H}\n{"type":"event"}\n{}\n\n\n`, [['event', '{}']]],
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
    ['bad event_id', '{"event_id":"nope"}', 400, /event_id must be 32 hex digits/],
    [
      'a decisive header key twice',
      '{"dsn":"https://a@o1.ingest.sentry.io/1","x":"dsn","dsn":"https://b@evil.example/2"}\n',
      400,
      /"dsn" appears more than once/,
    ],
    [
      'sent_at twice',
      '{"sent_at":"2026-11-22T00:00:00Z", "sent_at" :"2020-01-01T00:00:00Z"}\n',
      400,
      /"sent_at" appears/,
    ],
    ['item header not JSON', `${H}\n{type:event}\n{}`, 400, /item 1 header \(offset 89\): not valid JSON/],
    ['item without type', `${H}\n{"length":2}\n{}`, 400, /"type" must be a non-empty string/],
    ['negative length', `${H}\n{"type":"attachment","length":-1}\n`, 400, /"length" must be a non-negative integer/],
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
      /expected a newline or the end after its 2-byte payload/,
    ],
    [
      'length but nothing after header',
      `${H}\n{"type":"attachment","length":2}`,
      400,
      /envelope ends after its header/,
    ],
    ['blank line between items', `${H}\n{"type":"event"}\n{}\n\n{"type":"event"}\n{}`, 400, /empty item header line/],
    [
      'event item over the limit',
      `${H}\n{"type":"event"}\n{"a":"${'x'.repeat(2000)}"}`,
      413,
      /item 1 \(event\) has 2008 bytes/,
    ],
  ])('%s', (_name, text, status, detail) => {
    const error = (() => {
      try {
        parse(text);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(RelayError);
    expect((error as RelayError).statusCode).toBe(status);
    expect((error as RelayError).message).toMatch(detail);
  });

  it('bounds the item count and header length', () => {
    const many = `${H}${'\n{"type":"session"}\n{}'.repeat(101)}`;
    expect(() => parse(many)).toThrow(/more than 100 items/);
    expect(() => parseEnvelope(Buffer.from(`{"x":"${'a'.repeat(70_000)}"}`), limits)).toThrow(
      /longer than 65536 bytes/,
    );
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
    ['https://key@o1.ingest.sentry.io/42', 'https://key@o1.ingest.sentry.io/42', '42'],
    ['http://key:secret@LOCALHOST:9000/sentry/7', 'http://key@localhost:9000/sentry/7', '7'],
  ])('parses %s', (text, key, project) => {
    const dsn = parseDsn(text);
    expect(typeof dsn === 'object' && [dsn.key, dsn.projectId]).toEqual([key, project]);
  });
  it.each([
    ['not a url', 'is not a URL'],
    ['ftp://k@h/1', 'must use http or https'],
    ['https://h/1', 'has no public key'],
    ['https://k@h/abc', 'must end with a numeric project id'],
  ])('refuses %s', (text, problem) => {
    expect(parseDsn(text)).toBe(problem);
  });
  it('builds the envelope endpoint with the key in the query', () => {
    const dsn = parseDsn('http://key@localhost:9000/sentry/7');
    expect(typeof dsn === 'object' && envelopeEndpoint(dsn)).toBe(
      'http://localhost:9000/sentry/api/7/envelope/?sentry_version=7&sentry_key=key',
    );
  });
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
