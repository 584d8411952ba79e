// The growth bench's own parts (bench/growth/): the envelopes it sends must be what its tables say they are, and
// the plots docs/benchmarks.md embeds must be the table's numbers.
import { describe, expect, it } from 'vitest';
import { sizeLabel, table, xychart } from '../bench/growth/report.ts';
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

describe('report', () => {
  it('draws one line per series, in the order the title names them', () => {
    const chart = xychart('MiB/s by size', ['1 KB', '20 MiB'], 'MiB/s', [
      { name: 'relay (fast)', values: [1.234, 250.4] },
      { name: 'fastify peer', values: [2, Number.NaN] },
    ]);
    expect(chart.split('\n')).toEqual([
      '```mermaid',
      'xychart-beta',
      '  title "MiB/s by size: relay (fast) / fastify peer (0 = not run: fastify peer)"',
      '  x-axis ["1 KB", "20 MiB"]',
      '  y-axis "MiB/s"',
      '  line [1.23, 250]',
      '  line [2, 0]',
      '```',
    ]);
  });

  it('aligns a table: names left, numbers right, a missing number as a dash', () => {
    expect(
      table(
        't',
        ['name', 'env/s'],
        [
          ['relay', 9950.4],
          ['peer', Number.NaN],
        ],
      ).split('\n'),
    ).toEqual(['', 't', 'name   env/s', 'relay   9950', 'peer       –']);
  });

  it.each([
    [1024, '1 KB'],
    [65536, '64 KB'],
    [MiB, '1 MiB'],
    [20 * MiB, '20 MiB'],
    [10.5 * MiB, '10.5 MiB'],
  ])('labels %d bytes %s', (bytes, label) => {
    expect(sizeLabel(bytes)).toBe(label);
  });
});
