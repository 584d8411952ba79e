// How the backlog bench reads live latency (bench/growth/live-latency.ts): the quiet figure is the median of its
// windows' p99s, so one noisy window moves its spread, not the figure; late sends are counted apart.
import { describe, expect, it } from 'vitest';
import { type LiveSample, liveSpan } from '../../bench/growth/live-latency.ts';

/** `count` answers a millisecond apart from `at`, each `ms` long and sent `lag` late. */
const run = (at: number, count: number, ms: number, lag = 0): LiveSample[] =>
  Array.from({ length: count }, (_, i) => ({ at: at + i, ms, lag }));

describe('liveSpan', () => {
  it.each([
    {
      name: 'even windows: the median is their p99',
      samples: [...run(0, 1000, 10), ...run(1000, 1000, 10), ...run(2000, 1000, 10)],
      expected: { windows: [10, 10, 10], median: 10, min: 10, max: 10, p99: 10, lateShare: 0 },
    },
    {
      name: 'one slow window: the median holds, the spread and the whole-span p99 show it',
      samples: [...run(0, 1000, 10), ...run(1000, 1000, 200), ...run(2000, 1000, 12)],
      expected: { windows: [10, 200, 12], median: 12, min: 10, max: 200, p99: 200 },
    },
    {
      name: 'late sends: counted as late, their lag taken out of the from-the-send p99',
      samples: [...run(0, 2970, 10), ...run(2970, 30, 60, 50)],
      expected: { lateShare: 0.01, p99: 60, sentP99: 10 },
    },
    {
      name: 'a last window under half long is left out',
      samples: [...run(0, 1000, 10), ...run(1000, 1000, 10), ...run(2000, 400, 90)],
      expected: { windows: [10, 10], median: 10 },
    },
  ])('$name', ({ samples, expected }) => {
    const to = Math.max(...samples.map((s) => s.at)) + 1;
    expect(liveSpan(samples, 0, to, 1000)).toMatchObject(expected);
  });

  it('keeps to its span', () => {
    const span = liveSpan([...run(0, 100, 500), ...run(100, 1000, 5), ...run(1100, 100, 500)], 100, 1100, 1000);
    expect(span).toMatchObject({ count: 1000, p99: 5, windows: [5] });
  });
});
