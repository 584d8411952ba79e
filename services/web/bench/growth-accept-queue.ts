// How many connections wait in the kernel to be accepted during a concurrency step: the Recv-Q of every listening
// socket on the pod's port (`ss`, host networking), summed and sampled every 250 ms. libuv accepts one connection per
// listening socket per loop turn, so a busy server leaves new connections there, unseen by its own metrics and, when
// never answered within the step, by wrk's (docs/benchmarks.md, 2026-11-25 22:40).
import { execFile } from 'node:child_process';

const SAMPLE_MS = 250;

/** The connections queued for accept in `ss -Hltn` output: column 2 (Recv-Q) of each LISTEN line, summed. */
export function listenQueue(ssOutput: string): number {
  let queued = 0;
  for (const line of ssOutput.split('\n')) {
    const [state, recvQ] = line.trim().split(/\s+/);
    if (state === 'LISTEN') queued += Number(recvQ) || 0;
  }
  return queued;
}

/** Samples the listen queues on `port` until `stop()`, which returns the highest sum seen (NaN: `ss` never answered). */
export function sampleAcceptQueue(port: number): { stop(): number } {
  let peak = Number.NaN;
  const sample = () =>
    execFile('ss', ['-Hltn', `sport = :${port}`], (err, out) => {
      if (!err) peak = Math.max(Number.isNaN(peak) ? 0 : peak, listenQueue(out));
    });
  sample();
  const timer = setInterval(sample, SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}
