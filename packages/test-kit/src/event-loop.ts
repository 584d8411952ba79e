// How long this thread's event loop is blocked, less the time it waited for a CPU other processes held.
import { existsSync, readFileSync } from 'node:fs';

// Wall time less this thread's run-queue wait (/proc/thread-self/schedstat), so other processes' load on the machine
// does not count as a block; where that file cannot be read (not Linux) it is plain wall time.
const SCHEDSTAT = '/proc/thread-self/schedstat';
const canReadSchedstat = existsSync(SCHEDSTAT);
const waitedForCpuMs = () => (canReadSchedstat ? Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[1]) / 1e6 : 0);
const SAMPLE_MS = 1;

/** The time and the wait so far, read with no wait between them (read again when the thread lost its CPU meanwhile). */
function clock(): { at: number; waited: number } {
  for (;;) {
    const waited = waitedForCpuMs();
    const at = performance.now();
    if (waitedForCpuMs() === waited) return { at, waited };
  }
}

/** Runs `work` while watching this thread's event loop; returns its result and the longest block seen, in ms. */
export async function watchEventLoop<T>(work: () => Promise<T>): Promise<{ result: T; maxBlockMs: number }> {
  let maxBlockMs = 0;
  let last = clock();
  const sampler = setInterval(() => {
    const now = clock();
    maxBlockMs = Math.max(maxBlockMs, now.at - last.at - SAMPLE_MS - (now.waited - last.waited));
    last = now;
  }, SAMPLE_MS);
  try {
    const result = await work();
    return { result, maxBlockMs };
  } finally {
    clearInterval(sampler);
  }
}

/** How long `work` holds this thread, timed as `watchEventLoop` times a block: the baseline a block is judged by. */
export function timeBlock(work: () => void): number {
  const start = clock();
  work();
  const end = clock();
  return end.at - start.at - (end.waited - start.waited);
}
