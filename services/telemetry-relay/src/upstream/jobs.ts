// Delivery's jobs while they are in memory: the queue, the ones running (counted against the concurrency, awaited
// by shutdown) and the bytes each holds of the budget, released when it ends whatever its outcome.
import type { FastifyBaseLogger } from 'fastify';
import type { MemoryBudget } from '../core/memory/budget.ts';
import type { Attempt } from './attempt.ts';
import { MemoryOnly } from './memory-only.ts';

export interface Job extends Attempt {
  /** Bytes of the budget (and of maxMemoryBytes) held until the job ends. */
  charge: number;
  /** Fast mode: the envelope exists only in memory (it counts against the spool's bounds, spooled at shutdown). */
  memoryOnly: boolean;
  /** A replayed row's body bytes, counted in `replayingBytes` until the job ends. */
  replaying?: number | undefined;
}

export class Jobs {
  /** Accepted envelopes to send now, in order. */
  readonly waiting: Job[] = [];
  readonly inFlight = new Set<Promise<void>>();
  /** Fast mode's memory-only envelopes, beside what the spool keeps (spool.heldBy). */
  readonly memoryOnly = new MemoryOnly<Job>();
  active = 0;
  /** Bytes charged by jobs (bounded by maxMemoryBytes and by the budget). */
  heldBytes = 0;
  /**
   * Body bytes of replayed rows being sent, bounded by maxMemoryBytes too: a file row costs little memory, and many
   * large spooled envelopes sent at once finished together, acknowledged none before and held live traffic back.
   */
  replayingBytes = 0;
  /** Replayed rows being sent, bounded by the pace's window. */
  replayCount = 0;
  readonly #budget: MemoryBudget;
  readonly #attempt: (job: Job) => Promise<void>;
  readonly #log: FastifyBaseLogger;
  readonly #onEnd: () => void;

  /** `onEnd` runs after each job's end, its charge released: room for the next. */
  constructor(budget: MemoryBudget, attempt: (job: Job) => Promise<void>, log: FastifyBaseLogger, onEnd: () => void) {
    this.#budget = budget;
    this.#attempt = attempt;
    this.#log = log;
    this.#onEnd = onEnd;
  }

  /** Takes `bytes` of the budget for a job about to be held; false when the budget has not got them. */
  charge(bytes: number): boolean {
    if (!this.#budget.take(bytes)) return false;
    this.heldBytes += bytes;
    return true;
  }

  /** Runs one job; its charge is released at the end. */
  run(job: Job): void {
    this.active++;
    const finished = () => {
      this.release(job);
      this.active--;
      this.inFlight.delete(done);
      this.#onEnd();
    };
    const done: Promise<void> = this.#attempt(job).then(finished, (error: unknown) => {
      this.#log.error({ err: error }, 'delivering an envelope failed unexpectedly');
      finished();
    });
    this.inFlight.add(done);
  }

  release(job: Job): void {
    if (job.replaying !== undefined) {
      this.replayingBytes -= job.replaying;
      this.replayCount--;
      job.replaying = undefined;
    }
    if (job.charge > 0) {
      this.#budget.release(job.charge);
      this.heldBytes -= job.charge;
      job.charge = 0;
    }
    this.memoryOnly.forget(job);
  }
}
