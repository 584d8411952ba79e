// Fast mode's envelopes held only in memory until sent: counted with the spool's rows against its bounds, in total
// and per client, so answering before the commit keeps no more than the spool would take (decision 011).
import { ClientTally, refuseOverLimits } from '../spool/shares.ts';
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
  refuseWhenFull(
    spool: Spool,
    limits: Parameters<typeof refuseOverLimits>[0],
    client: string | undefined,
    size: number,
  ) {
    const total = { count: spool.count + this.count, bytes: spool.bytes + this.bytes };
    const kept = spool.heldBy(client);
    const inMemory = this.#byClient.of(client);
    const own = { count: kept.count + inMemory.count, bytes: kept.bytes + inMemory.bytes };
    refuseOverLimits(limits, total, own, size);
  }
}
