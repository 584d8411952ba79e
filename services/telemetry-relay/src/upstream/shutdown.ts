// Delivery's shutdown: what never started is written to the spool, sends in flight get a grace period, and what is
// still in memory after it is spooled too (at-least-once: upstream dedupes by event id).
import type { FastifyBaseLogger } from 'fastify';
import type { SpoolEntry } from '../spool/spool.ts';
import type { SpoolWriter } from '../spool/writer.ts';
import type { Jobs } from './jobs.ts';

/** Spools every job left in `jobs`; `abandon` is called before the last write, once a failing send must not. */
export async function spoolTheRest(
  jobs: Jobs,
  writer: SpoolWriter,
  log: FastifyBaseLogger,
  timeoutMs: number,
  abandon: () => void,
): Promise<void> {
  await writer.flush(); // body files being written join their batch, which commits
  // Jobs that never started: on disk already (durable) or written now (fast).
  const unsent = jobs.waiting.splice(0);
  const toSpool = unsent.filter((job) => job.id === undefined);
  await writer.writeNow(toSpool.map((job) => ({ entry: job.entry as SpoolEntry, nextAttemptAt: 0 })));
  for (const job of unsent) jobs.release(job);
  await settled(jobs.inFlight, timeoutMs);
  await writer.flush();
  // Still in flight after the timeout: keep a copy. Their bytes stay charged until the forwarder's close aborts
  // the sends.
  const stuck = [...jobs.memoryOnly.jobs].filter((job) => !job.spooling); // the rest were written as their send failed
  abandon(); // before writing: a send failing meanwhile must not spool a second copy
  await writer.writeNow(stuck.map((job) => ({ entry: job.entry as SpoolEntry, nextAttemptAt: 0 })));
  for (const job of stuck) jobs.memoryOnly.forget(job);
  if (stuck.length + toSpool.length > 0) {
    log.info({ spooled: stuck.length + toSpool.length }, 'spooled envelopes still in memory at shutdown');
  }
}

/** Waits for `inFlight` to settle, at most `timeoutMs`. */
async function settled(inFlight: ReadonlySet<Promise<void>>, timeoutMs: number): Promise<void> {
  if (inFlight.size === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(inFlight),
    new Promise((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
}
