// Fast mode's envelopes held only in memory until sent: counted with the spool's rows against its bounds, in total
// and per client, so answering before the commit keeps no more than the spool would take; over them a refusal
// (decision 011).
import { RelayError } from '../core/errors.ts';
import { ClientTally, type SpoolLimits, spoolRoom, type Tally } from '../spool/shares.ts';
import type { Spool, SpoolEntry } from '../spool/spool.ts';

/** A delivery job whose envelope may exist only in memory. */
export interface MemoryJob {
  entry: object;
  memoryOnly: boolean;
}

export class MemoryOnly<J extends MemoryJob> {
  /** The jobs held only in memory, spooled at shutdown if still unsent. */
  readonly jobs = new Set<J>();
  count = 0;
  bytes = 0;
  readonly #byClient = new ClientTally();

  /** From now on `job`'s envelope exists only in memory. */
  hold(job: J): void {
    const { body, client } = job.entry as SpoolEntry;
    job.memoryOnly = true;
    this.jobs.add(job);
    this.count++;
    this.bytes += body.length;
    this.#byClient.add(client, body.length);
  }

  /** A job no longer only in memory: delivered, dropped, or spooled. */
  forget(job: J): void {
    if (!job.memoryOnly) return;
    job.memoryOnly = false;
    this.jobs.delete(job);
    const { body, client } = job.entry as SpoolEntry;
    this.count--;
    this.bytes -= body.length;
    this.#byClient.remove(client, body.length);
  }

  /** Throws the spool's refusal (503, or 429 for a client over its share) when `size` more bytes would not fit. */
  refuseWhenFull(spool: Spool, limits: SpoolLimits, client: string | undefined, size: number) {
    const total = { count: spool.count + this.count, bytes: spool.bytes + this.bytes };
    const kept = spool.heldBy(client);
    const inMemory = this.#byClient.of(client);
    const own = { count: kept.count + inMemory.count, bytes: kept.bytes + inMemory.bytes };
    refuseOverLimits(limits, total, own, size);
  }
}

/**
 * Throws when `size` more bytes do not fit. A full spool is this relay's condition, not the SDK's: no
 * X-Sentry-Rate-Limits, a short Retry-After.
 */
function refuseOverLimits(limits: SpoolLimits, total: Tally, own: Tally, size: number): void {
  const full = spoolRoom(limits, total, own, size);
  if (full === 'client') {
    throw new RelayError(
      'client_spool_full',
      `your network keeps ${own.count} undelivered envelopes (${own.bytes} bytes), its share of this relay's spool; upstream is not taking them`,
      { 'retry-after': '30' },
    );
  }
  if (full === 'spool') {
    throw new RelayError(
      'spool_full',
      `the relay holds ${total.count} undelivered envelopes (${total.bytes} bytes), its limit; upstream is not taking them`,
      { 'retry-after': '5' },
    );
  }
}
