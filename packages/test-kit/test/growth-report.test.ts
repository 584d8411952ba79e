// The growth benches' printer (relay and web): docs/benchmarks.md embeds its tables and charts as printed, so the
// exact text is pinned here.
import { describe, expect, it } from 'vitest';
import { cell, chart, niceCeiling, num, sizeLabel, table, times } from '../src/growth-report.ts';

const MiB = 1024 * 1024;

describe('numbers', () => {
  it.each([
    [1234567, 0, '1 234 567'],
    [0.5, 2, '0.50'],
    [-1234.5, 1, '-1 234.5'],
    [Number.NaN, 0, 'n/a'],
  ])('num(%s, %s) is %s', (value, digits, text) => expect(num(value, digits)).toBe(text));

  it.each([
    [9950.4, '9 950'],
    [35.54, '35.5'],
    [0.934, '0.93'],
    [50, '50'],
    [Number.POSITIVE_INFINITY, 'n/a'],
    ['46.6 %', '46.6 %'],
  ])('cell(%s) is %s', (value, text) => expect(cell(value)).toBe(text));

  it.each([
    [5, 1, '×5.00'],
    [1, 0, 'n/a'],
    [Number.NaN, 1, 'n/a'],
  ])('times(%s, %s) is %s', (value, base, text) => expect(times(value, base)).toBe(text));

  it.each([
    [0, 1],
    [0.9, 1],
    [1.5, 2],
    [8.68, 10],
    [2520, 5000],
  ])('niceCeiling(%s) is %s', (value, top) => expect(niceCeiling(value)).toBe(top));

  it.each([
    [1024, '1 KB'],
    [65536, '64 KB'],
    [MiB, '1 MiB'],
    [20 * MiB, '20 MiB'],
    [10.5 * MiB, '10.5 MiB'],
  ])('sizeLabel(%d) is %s', (bytes, label) => expect(sizeLabel(bytes)).toBe(label));
});

describe('table', () => {
  it('is Markdown: names left, numbers right-aligned and formatted, a missing number as n/a', () => {
    expect(
      table(
        ['name', 'env/s', 'p99 ms'],
        [
          ['relay', 9950.4, 35.54],
          ['peer', Number.NaN, 2],
        ],
      ).split('\n'),
    ).toEqual(['| name | env/s | p99 ms |', '| --- | ---: | ---: |', '| relay | 9 950 | 35.5 |', '| peer | n/a | 2 |']);
  });
});

describe('chart', () => {
  it('draws one line per series, names them in order, and names a series with missing points', () => {
    const drawn = chart('MiB/s by size', 'size', ['1 KB', '20 MiB'], 'MiB/s', [
      { name: 'relay (fast)', values: [1.234, 250.4] },
      { name: 'fastify peer', values: [2, Number.NaN] },
    ]);
    expect(drawn.split('\n')).toEqual([
      '```mermaid',
      'xychart-beta',
      '  title "MiB/s by size (relay (fast), fastify peer, in that order; 0 = not run: fastify peer)"',
      '  x-axis "size" ["1 KB", "20 MiB"]',
      '  y-axis "MiB/s" 0 --> 500',
      '  line [1.23, 250]',
      '  line [2, 0]',
      '```',
    ]);
  });

  it('names no order for a single series', () => {
    expect(chart('CPU', 'items', [10, 500], 'ms', [{ name: 'ours', values: [0.9151, 5.2] }]).split('\n')).toEqual([
      '```mermaid',
      'xychart-beta',
      '  title "CPU"',
      '  x-axis "items" ["10", "500"]',
      '  y-axis "ms" 0 --> 10',
      '  line [0.915, 5.2]',
      '```',
    ]);
  });
});
