// The leak search finds a secret wherever an item can hold it, so a clean result from the end-to-end suite means
// the secret is not there (and not that the search could not see it).

import { deflateSync, gzipSync } from 'node:zlib';
import { type CapturedItem, readEnvelope } from '@app/test-kit';
import { describe, expect, it } from 'vitest';
import { describeFinding, findSecrets } from './leak-search.ts';

const SECRET = { name: 'email', value: 'ada@example.com' };

const envelopeOf = (items: Array<{ type: string; payload: Buffer }>, header: object = {}) =>
  readEnvelope(
    Buffer.concat([
      Buffer.from(`${JSON.stringify({ sdk: { name: 'sentry.javascript.browser' }, ...header })}\n`),
      ...items.flatMap(({ type, payload }) => [
        Buffer.from(`${JSON.stringify({ type, length: payload.length })}\n`),
        payload,
        Buffer.from('\n'),
      ]),
    ]),
  );
const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const recording = (compress: (b: Buffer) => Buffer) =>
  Buffer.concat([Buffer.from('{"segment_id":0}\n'), compress(json([{ data: { href: `x?to=${SECRET.value}` } }]))]);

describe('findSecrets', () => {
  it.each([
    ['a JSON string', 'log', json({ items: [{ body: `to ${SECRET.value}` }] }), 'email in browser log at items[].body'],
    [
      'a key that is not an identifier',
      'span',
      json({ items: [{ attributes: { 'url.full': { value: SECRET.value } } }] }),
      'email in browser span at items[].attributes["url.full"].value',
    ],
    [
      'URL-encoded',
      'event',
      json({ request: { url: `/a?to=${encodeURIComponent(SECRET.value)}` } }),
      'email in browser event at request.url',
    ],
    [
      'a zlib-compressed replay',
      'replay_recording',
      recording(deflateSync),
      'email in browser replay_recording at recording[].data.href',
    ],
    [
      'a gzip-compressed replay',
      'replay_recording',
      recording(gzipSync),
      'email in browser replay_recording at recording[].data.href',
    ],
    [
      'a payload that is not JSON',
      'attachment',
      Buffer.from(`from: ${SECRET.value}`),
      'email in browser attachment at (bytes)',
    ],
  ])('finds it in %s', (_, type, payload, where) => {
    expect(findSecrets([envelopeOf([{ type, payload }])], [SECRET]).map(describeFinding)).toEqual([where]);
  });

  it('finds it in the envelope header', () => {
    const envelope = envelopeOf([], { trace: { transaction: SECRET.value } });
    expect(findSecrets([envelope], [SECRET]).map(describeFinding)).toEqual([
      'email in browser envelope header at trace.transaction',
    ]);
  });

  it('finds nothing where it is not', () => {
    const items: Array<Pick<CapturedItem, 'type' | 'payload'>> = [
      { type: 'log', payload: json({ items: [{ body: 'to [email]' }] }) },
      { type: 'replay_recording', payload: Buffer.concat([Buffer.from('{}\n'), deflateSync(json([{ a: 1 }]))]) },
    ];
    expect(findSecrets([envelopeOf(items)], [SECRET])).toEqual([]);
  });
});
