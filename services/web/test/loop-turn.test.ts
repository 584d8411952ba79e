import { setImmediate as nextCheck } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { turnClock } from '../src/server/ops/loop-turn.ts';

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('turnClock', () => {
  it('reads 0 at the first call of a turn and the time since it later in the same turn', () => {
    const waited = turnClock();
    expect(waited()).toBe(0);
    busy(30);
    expect(waited()).toBeGreaterThanOrEqual(30);
  });

  it('starts again in the next turn', async () => {
    const waited = turnClock();
    waited();
    busy(30);
    await nextCheck();
    await nextCheck();
    expect(waited()).toBe(0);
    expect(waited()).toBeLessThan(30);
  });
});
