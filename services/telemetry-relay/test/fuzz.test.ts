// Property: whatever bytes arrive — valid envelopes mutated, truncated, spliced — the relay answers 200 or a 4xx
// with a reason, never a 5xx, and never dies.
import { attachmentItem, EVENT_ID, envelope, errorEvent, eventItem } from '@app/test-kit';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRelay } from './with-relay.ts';

const under = withRelay({ MAX_EVENT_ITEM_BYTES: '4096' }, { projectId: '3', publicKey: 'fz' });
let pool: Pool;

beforeAll(() => {
  pool = new Pool(under.relay.url, { connections: 8 });
});
afterAll(() => pool?.close());

describe('fuzz', () => {
  it('answers 200 or 4xx with a reason to 1500 mutated envelopes', async () => {
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return Math.floor((seed / 2 ** 31) * n);
    };
    const { dsn } = under;
    const seeds = [
      envelope({ event_id: EVENT_ID, dsn, sent_at: '2026-11-22T00:00:00Z' }, [
        eventItem(errorEvent()),
        attachmentItem(Buffer.from([0, 10, 13, 255])),
      ]),
      envelope({ dsn }, [
        eventItem(errorEvent('Script error.')),
        { header: { type: 'session' }, payload: '{"sid":"1"}' },
      ]),
      envelope({ dsn }, [
        { header: { type: 'replay_recording', length: 6 }, payload: Buffer.from([31, 139, 10, 10, 0, 1]) },
      ]),
    ];
    const tokens = [
      '\n',
      '\r',
      '{',
      '}',
      '"',
      ':',
      '"length":',
      '999999',
      '-1',
      '"type":"event"',
      '\u0000',
      '\\u0053',
      '\\ud800',
      '2.0',
      ' ',
      'é',
    ];
    const statuses = new Map<number, number>();
    for (let i = 0; i < 1500; i++) {
      let body = Buffer.from(seeds[random(seeds.length)] as Buffer);
      for (let m = 0, count = 1 + random(4); m < count; m++) {
        const at = random(body.length + 1);
        switch (random(4)) {
          case 0: // truncate
            body = body.subarray(0, at);
            break;
          case 1: // flip a byte
            if (body.length > 0) body[Math.min(at, body.length - 1)] = random(256);
            break;
          case 2: // insert a token
            body = Buffer.concat([
              body.subarray(0, at),
              Buffer.from(tokens[random(tokens.length)] as string),
              body.subarray(at),
            ]);
            break;
          default: // delete a span
            body = Buffer.concat([body.subarray(0, at), body.subarray(at + random(40))]);
        }
      }
      const response = await pool.request({
        method: 'POST',
        path: '/monitoring',
        body,
        headers: { 'content-type': 'text/plain' },
      });
      const text = await response.body.text();
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      if (response.statusCode !== 200) {
        expect(response.statusCode, `case ${i}: ${text}`).toBeGreaterThanOrEqual(400);
        expect(response.statusCode, `case ${i}: ${text}`).toBeLessThan(500);
        expect(JSON.parse(text)).toEqual({ error: expect.any(String), detail: expect.any(String) });
      }
    }
    expect(statuses.get(200)).toBeGreaterThan(50);
    expect(statuses.get(400)).toBeGreaterThan(50);
    expect((await fetch(`${under.relay.url}/readyz`)).status).toBe(200);
  });

  it.each([
    [
      'a second dsn spelled \\u0064sn',
      () => `{"dsn":"${under.dsn}","\\u0064sn":"http://fz@127.0.0.1:1/3"}\n{"type":"event"}\n{}`,
      400,
      /"dsn" appears more than once \(as "dsn" and "\\u0064sn"\)/,
    ],
    [
      'a DSN key with broken percent-encoding',
      () => `{"dsn":"http://fz%E0%A4%A@127.0.0.1:1/3"}\n{"type":"event"}\n{}`,
      403,
      /public key with a "%" not followed by two hex digits/,
    ],
    [
      'an event to be filtered, nested 128 deep',
      () =>
        `{"dsn":"${under.dsn}"}\n{"type":"event"}\n{"message":"Script error.","x":${'['.repeat(127)}${']'.repeat(127)}}`,
      400,
      /item 1 \(event\) nests arrays\/objects deeper than 127 levels/,
    ],
    ['CRLF line endings', () => `{"dsn":"${under.dsn}"}\r\n{"type":"event"}\r\n{}`, 400, /ends with "\\r"/],
  ])('answers %s with a 4xx and its reason', async (_name, body, status, detail) => {
    const response = await pool.request({ method: 'POST', path: '/monitoring', body: body() });
    const answer = (await response.body.json()) as { error: string; detail: string };
    expect([response.statusCode, answer.detail]).toEqual([status, expect.stringMatching(detail)]);
    expect((await fetch(`${under.relay.url}/readyz`)).status).toBe(200);
  });
});
