import { describe, expect, it } from 'vitest';
import {
  admitForcedSample,
  createTokenBucket,
  isForcedSample,
  traceContinuations,
} from '../src/server/trace-budget.ts';

describe('trace continuation budget', () => {
  it.each([
    ['a -1 flag', { parentSpanId: 'ab', sampled: true, sampleRand: 0.9 }, true],
    ['no flag, a baggage sample_rand under the rate', { parentSpanId: 'ab', sampleRand: 0 }, true],
    ['no flag, a sample_rand over the rate', { parentSpanId: 'ab', sampleRand: 0.5 }, false],
    ['a -0 flag (costs nothing to honour)', { parentSpanId: 'ab', sampled: false, sampleRand: 0 }, false],
    ['no incoming trace (decided here)', { sampleRand: 0 }, false],
  ])('%s → forced: %s', (_, trace, forced) => {
    expect(isForcedSample(trace, 0.1)).toBe(forced);
  });

  it('admits a burst of perSecond, then perSecond a second, and counts each outcome', () => {
    let now = 0;
    const bucket = createTokenBucket(5, 5, () => now);
    const before = { ...traceContinuations };
    const admitted = (n: number) => Array.from({ length: n }, () => admitForcedSample(bucket)).filter(Boolean).length;
    expect(admitted(100)).toBe(5);
    now += 1_000;
    expect(admitted(100)).toBe(5);
    now += 200;
    expect(admitted(100)).toBe(1);
    expect(traceContinuations.continued - before.continued).toBe(11);
    expect(traceContinuations.over_budget - before.over_budget).toBe(289);
  });

  it('admits nothing with a budget of 0', () => {
    const bucket = createTokenBucket(0);
    expect(bucket.take()).toBe(false);
  });
});
