// The scrub stage in the envelope: what is forwarded byte for byte, what changes and by how much, the metric, the
// limits, and the settings' validation. Relay's rules themselves are in scrub-conformance.test.ts.
import {
  attachmentItem,
  type CaptureServer,
  EVENT_ID,
  envelope,
  errorEvent,
  eventItem,
  post,
  runToExit,
} from '@app/test-kit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { compileScrub, DEFAULT_SCRUB_SETTINGS } from '../../src/pii/index.ts';
import { RELAY_ENTRY, type RunningRelay, startRelay, withRelay } from '../with-relay.ts';

const under = withRelay({ SPOOL_MODE: 'fast', MAX_EVENT_ITEM_BYTES: '4096' });
let capture: CaptureServer;
let relay: RunningRelay;
let dsn: string;
beforeAll(() => ({ capture, relay, dsn } = under));
afterEach(() => capture.clear());

const arrivedFor = (id: string) => capture.waitFor((e) => e.header.event_id === id);

describe('scrubbing in the envelope', () => {
  it('forwards an envelope in which nothing matched byte for byte (the prescan never parses it)', async () => {
    const body = envelope({ event_id: EVENT_ID, dsn }, [eventItem(), attachmentItem(Buffer.from('password=hunter2'))]);
    expect((await post(relay.tunnel, body)).status).toBe(200);
    expect((await arrivedFor(EVENT_ID)).body.equals(body)).toBe(true);
    // A browser error event as the SDK writes it holds no trigger: it costs one scan, no JSON.parse.
    const { prescan } = compileScrub(DEFAULT_SCRUB_SETTINGS) ?? { prescan: () => true };
    expect(prescan(Buffer.from(JSON.stringify(errorEvent())))).toBe(false);
  });

  it('changes exactly the scrubbed field of the matched item; the other items keep their bytes', async () => {
    const id = 'a'.repeat(32);
    const event = { ...errorEvent(), event_id: id, extra: { cart: 3, password: 'hunter2' } };
    const other = eventItem({ ...errorEvent(), event_id: id });
    const attachment = attachmentItem(Buffer.from([0, 1, 2, 10, 255]));
    const body = envelope({ event_id: id, dsn }, [eventItem(event), other, attachment]);
    expect((await post(relay.tunnel, body)).status).toBe(200);
    const arrived = await arrivedFor(id);
    const expected = {
      ...event,
      extra: { cart: 3, password: '[Filtered]' },
      _meta: { extra: { password: { '': { rem: [['@password:filter', 's', 0, 10]], len: 7 } } } },
    };
    const payload = JSON.stringify(expected);
    const want = envelope({ event_id: id, dsn }, [
      { header: { type: 'event', length: Buffer.byteLength(payload) }, payload },
      other,
      attachment,
    ]);
    expect(arrived.body.toString('latin1')).toBe(want.toString('latin1'));
    expect(arrived.body.includes('hunter2')).toBe(false);
  });

  it('counts what each rule scrubbed by rule and field kind, never the value', async () => {
    const counts = async () => {
      const text = await (await fetch(`${relay.url}/metrics`)).text();
      const found = new Map<string, number>();
      for (const line of text.split('\n')) {
        const match = /^relay_scrubbed_total(\{.*\}) (\d+)$/.exec(line);
        if (match) found.set(match[1] as string, Number(match[2]));
      }
      return { found, text };
    };
    const before = await counts();
    const id = 'b'.repeat(32);
    const event = {
      event_id: id,
      extra: { api_key: 'k-1', card: '4111 1111 1111 1111' },
      user: { username: 'secret' },
    };
    await post(relay.tunnel, envelope({ event_id: id, dsn }, [eventItem(event)]));
    await arrivedFor(id);
    const after = await counts();
    const delta = (labels: string) => (after.found.get(labels) ?? 0) - (before.found.get(labels) ?? 0);
    expect(delta('{rule="@password:filter",field="extra"}')).toBe(1);
    expect(delta('{rule="@creditcard:filter",field="extra"}')).toBe(1);
    expect(delta('{rule="@password:filter",field="user"}')).toBe(1);
    expect(after.text).not.toMatch(/4111|k-1/);
  });

  it('catches a key spelled with JSON \\u escapes (the prescan cannot be dodged that way)', async () => {
    const id = 'c'.repeat(32);
    const body = `{"event_id":"${id}","dsn":"${dsn}"}\n{"type":"event"}\n{"event_id":"${id}","extra":{"p\\u0061ssw\\u006frd":"hunter2"}}`;
    expect((await post(relay.tunnel, body)).status).toBe(200);
    const arrived = await arrivedFor(id);
    expect(arrived.body.includes('hunter2')).toBe(false);
  });

  it('scrubs an SSN and an IBAN no key word announces (found by the shapes in the shared byte scan)', async () => {
    for (const [n, value] of [
      ['1', '078-05-1120'],
      ['2', 'DE89370400440532013000'],
    ] as const) {
      const id = n.repeat(32);
      const event = { ...errorEvent(), event_id: id, extra: { note: `see ${value} ok` } };
      expect((await post(relay.tunnel, envelope({ event_id: id, dsn }, [eventItem(event)]))).status).toBe(200);
      const arrived = await arrivedFor(id);
      expect(arrived.body.includes(value), value).toBe(false);
      expect(arrived.body.includes('[Filtered]'), value).toBe(true);
    }
  });

  it('refuses with 413 an item that scrubbing would grow past MAX_EVENT_ITEM_BYTES', async () => {
    const id = 'd'.repeat(32);
    const extra = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`pw${i}_token`, 'x']));
    const body = envelope({ event_id: id, dsn }, [eventItem({ event_id: id, extra })]);
    expect(body.length).toBeLessThan(4096);
    const response = await post(relay.tunnel, body);
    expect(response.status).toBe(413);
    expect(String(response.json.detail)).toMatch(/once scrubbed/);
  });

  it('refuses with 413 an envelope that scrubbing would grow past MAX_ENVELOPE_BYTES', async () => {
    const small = await startRelay({ ALLOWED_DSNS: dsn, SPOOL_MODE: 'fast', MAX_ENVELOPE_BYTES: '2048' });
    try {
      const id = 'f'.repeat(32);
      const extra = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}_token`, 'x']));
      const body = envelope({ event_id: id, dsn }, [eventItem({ extra }), eventItem({ extra })]);
      expect(body.length).toBeLessThan(2048);
      const response = await post(small.tunnel, body);
      expect(response.status).toBe(413);
      expect(String(response.json.detail)).toMatch(/envelope has \d+ bytes once scrubbed/);
    } finally {
      await small.close();
    }
  });

  it('leaves everything as sent with SCRUB_DATA=false', async () => {
    const off = await startRelay({ ALLOWED_DSNS: dsn, SPOOL_MODE: 'fast', SCRUB_DATA: 'false' });
    try {
      const id = 'e'.repeat(32);
      const body = envelope({ event_id: id, dsn }, [eventItem({ event_id: id, extra: { password: 'hunter2' } })]);
      await post(off.tunnel, body);
      expect((await arrivedFor(id)).body.equals(body)).toBe(true);
    } finally {
      await off.close();
    }
  });
});

describe('scrubbing settings', () => {
  it.each([
    ['SCRUB_DATA', 'maybe', /SCRUB_DATA must be true or false/],
    ['SCRUB_DEFAULTS', '2', /SCRUB_DEFAULTS must be true or false/],
    ['SCRUB_IP_ADDRESSES', 'sometimes', /SCRUB_IP_ADDRESSES must be true or false/],
    ['SCRUB_STRICT', 'strict', /SCRUB_STRICT must be true or false/],
    ['SAFE_FIELDS', `a,${'x'.repeat(201)}`, /SAFE_FIELDS has an entry longer than 200 characters/],
    ['SENSITIVE_FIELDS', 'ok,bad\u0007', /SENSITIVE_FIELDS has an entry .* control character/],
  ])('refuses %s=%j naming it', (name, value, message) => {
    expect(() => loadConfig({ ALLOWED_DSNS: 'https://k@sentry.io/1', [name]: value })).toThrow(message);
  });

  it('defaults to a new Sentry project: scrubbing and default scrubbers on, IP addresses kept', () => {
    expect(loadConfig({ ALLOWED_DSNS: 'https://k@sentry.io/1' }).scrub).toEqual(DEFAULT_SCRUB_SETTINGS);
  });

  it('stops the process with exit 78 naming a bad setting', async () => {
    const result = await runToExit(RELAY_ENTRY, {
      env: { ALLOWED_DSNS: 'https://k@sentry.io/1', SCRUB_DEFAULTS: 'maybe' },
    });
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(/SCRUB_DEFAULTS must be true or false/);
  });
});

describe('the prescan', () => {
  const { prescan } = compileScrub(DEFAULT_SCRUB_SETTINGS) ?? { prescan: () => true };
  it.each([
    ['a key word in capitals', '{"extra":{"PASSWORD":"x"}}'],
    ['a key word spelled with a \\u escape', '{"extra":{"p\\u0061ssword":"x"}}'],
    ['a long s that folds to s', '{"extra":{"pa\u017fsword":"x"}}'],
    ['a card number with tab escapes', '{"extra":{"c":"4111\\t1111\\t1111\\t1111"}}'],
    ['URL credentials with escaped slashes', '{"extra":{"u":"redis:\\/\\/u:p@host"}}'],
    ['an email in the message', '{"message":"mail jane@example.com"}'],
    ['an IBAN', '{"extra":{"i":"DE89370400440532013000"}}'],
    ['an SSN', '{"extra":{"s":"078-05-1120"}}'],
  ])('walks an item with %s', (_name, json) => {
    expect(prescan(Buffer.from(json))).toBe(true);
  });
});
