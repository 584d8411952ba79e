// The CPU time spent in the current event-loop turn, as the load shedder reads it.
import { setImmediate as nextCheck } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { turnClock } from '../../../src/server/ops/loop-turn.ts';

const cpuMs = () => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1_000;
};
/** Spins until this thread has used `ms` more of CPU. */
const burn = (ms: number) => {
  const until = cpuMs() + ms;
  while (cpuMs() < until);
};
/** Blocks the thread for `ms` without using CPU, as a starved or throttled process would stand still. */
const stall = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

describe('turnClock', () => {
  it("reads 0 at a turn's first call and the CPU time since it later in the turn", () => {
    const spent = turnClock();
    expect(spent()).toBe(0);
    burn(30);
    expect(spent()).toBeGreaterThanOrEqual(30);
  });

  it('does not count time the thread stood still', () => {
    const spent = turnClock();
    spent();
    stall(100);
    expect(spent()).toBeLessThan(50);
  });

  it('starts again in the next turn', async () => {
    const spent = turnClock();
    spent();
    burn(30);
    await nextCheck();
    expect(spent()).toBe(0);
    expect(spent()).toBeLessThan(30);
  });
});
