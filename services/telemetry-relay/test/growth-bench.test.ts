// The growth bench's own parts (bench/growth/): the envelopes it sends must be what its tables say they are (the
// printer is packages/test-kit's growth-report, tested there).
import { describe, expect, it } from 'vitest';
import { EVENT_MAX_BYTES, sizedEnvelope } from '../bench/growth/sized-envelope.ts';
import { parseEnvelope } from '../src/envelope/parse.ts';

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
