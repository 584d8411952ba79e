// The growth bench's own parts (bench/growth/): the envelopes it sends must be what its tables say they are (the
// printer is packages/test-kit's growth-report, tested there).
import { describe, expect, it } from 'vitest';
import { describeRefusals } from '../../bench/growth/refusals.ts';
import { EVENT_MAX_BYTES, sizedEnvelope } from '../../bench/growth/sized-envelope.ts';
import { parseEnvelope } from '../../src/envelope/parse.ts';

const MiB = 1024 * 1024;
const limits = { maxHeaderBytes: 64 * 1024, maxItems: 1000, maxEventItemBytes: MiB };

describe('sizedEnvelope', () => {
  it.each([
    { bytes: 1024, items: ['event'] },
    { bytes: 5000, items: ['event'] },
    { bytes: 64 * 1024, items: ['event'] },
    { bytes: EVENT_MAX_BYTES + 90, items: ['event'] },
    { bytes: EVENT_MAX_BYTES + 1000, items: ['event', 'attachment'] },
    { bytes: MiB, items: ['event', 'attachment'] },
    { bytes: 20 * MiB, items: ['event', 'attachment'] },
  ])('$bytes bytes: exactly that long, a valid envelope of $items', ({ bytes, items }) => {
    const body = sizedEnvelope('https://key@o1.ingest.example.com/42', bytes);
    expect(body.length).toBe(bytes);
    const envelope = parseEnvelope(body, limits);
    expect(envelope.items.map((item) => item.type)).toEqual(items);
    const event = envelope.items[0]?.payload ?? Buffer.alloc(0);
    expect(event.length).toBeLessThanOrEqual(EVENT_MAX_BYTES + 100);
    expect(JSON.parse(event.toString('utf8')).exception.values[0].type).toBe('TypeError');
  });
});

describe('describeRefusals', () => {
  const run = (non2xx: number, read = 0, timeout = 0) => ({ non2xx, connect: 0, read, write: 0, timeout });
  it.each([
    ['nothing refused', [run(0)], undefined, 'none'],
    [
      'a peer: non-2xx and socket errors, largest first',
      [run(3, 5), run(2, 0, 1)],
      undefined,
      'non-2xx: 5, socket read: 5, socket timeout: 1',
    ],
    [
      "the relay's reasons over the step, with their statuses",
      [run(1500), run(1500, 7)],
      {
        before: new Map([
          ['client_overloaded', 100],
          ['overloaded', 4],
        ]),
        after: new Map([
          ['client_overloaded', 2100],
          ['overloaded', 4],
          ['client_spool_full', 1000],
        ]),
      },
      'client_overloaded 429: 2 000, client_spool_full 429: 1 000, socket read: 7',
    ],
    [
      'answers the counter did not see',
      [run(12)],
      { before: new Map(), after: new Map([['overloaded', 10]]) },
      'overloaded 503: 10, other non-2xx: 2',
    ],
  ])('%s', (_name, runs, rejected, text) => {
    expect(describeRefusals(runs, rejected)).toBe(text);
  });
});
