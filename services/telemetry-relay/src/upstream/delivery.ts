// Every accepted envelope reaches upstream at least once: `accept` keeps it by SPOOL_MODE's promise, `pump`
// sends held then spooled envelopes oldest first within the concurrency and memory budget, `close` spools the rest.
// Short of memory it waits on disk, never dropped; a full spool is a 503, a client over its share a 429 (decision 011).
import type { FastifyBaseLogger } from 'fastify';
import { RelayError } from '../core/errors.ts';
import type { MemoryBudget } from '../core/memory/budget.ts';
import type { SpoolMode } from '../core/types.ts';
import type { RelayMetrics } from '../ops/metrics.ts';
import type { Lease, Spool, SpoolEntry } from '../spool/spool.ts';
import { createSpoolWriter } from '../spool/writer.ts';
import { type Attempt, createAttempts, type RateLimitLearner } from './attempt.ts';
import { reportSpoolDropped } from './dropped.ts';
import type { Forwarder } from './forward.ts';
import { MemoryOnly } from './memory-only.ts';
import { createOutage } from './outage.ts';
import { replayWindowLimit, startReplayPace } from './replay-pace.ts';

export interface DeliveryOptions {
  mode: SpoolMode;
  spool: Spool;
  forwarder: Forwarder;
  rateLimits: RateLimitLearner;
  metrics: RelayMetrics;
  log: FastifyBaseLogger;
  /** The process-wide memory budget: delivery charges it for every body it holds. */
  budget: MemoryBudget;
  /** Whether a spooled envelope may still go where it was going (the configuration may have changed since). */
  isAllowedDestination(target: { url: string; dsnKey: string }): boolean;
  maxSpoolEnvelopes: number;
  maxSpoolBytes: number;
  /** Most envelopes and bytes one client (network) may keep undelivered. */
  perClientSpoolEnvelopes: number;
  perClientSpoolBytes: number;
  /** The network an entry's `client` address belongs to (service-kit's clientNetwork). */
  clientNetwork(address: string): string;
  maxAgeMs: number;
  /** Most bytes delivery holds in memory (a share of the budget); beyond it envelopes wait on disk. */
  maxMemoryBytes: number;
  /** Most envelopes sent at once. */
  concurrency: number;
  /** Replay's pace (replay-pace.ts): the most the event loop may run late, ms, while replay opens up; 0: unpaced. */
  replayMaxLoopDelayMs: number;
  /** How late the loop ran since the previous call, ms; perf_hooks' unless a test scripts it. */
  loopDelay?: () => number;
  retryBaseMs: number;
  retryMaxMs: number;
}

export interface Delivery {
  /**
   * Makes the envelope safe by the mode's promise: returns once it is (fast mode, held in memory), or a promise that
   * resolves once it is (committed to the spool). Throws RelayError('spool_full') when full, ('client_spool_full')
   * when the entry's client (an address) keeps its share already, ('draining') when closing.
   */
  accept(entry: Omit<SpoolEntry, 'attempts'>): Promise<void> | undefined;
  /** Envelopes held in memory (fast mode) not yet delivered or spooled. */
  readonly memoryCount: number;
  /** Stops taking work, waits up to `timeoutMs` for sends in flight, spools what is still in memory. */
  close(timeoutMs: number): Promise<void>;
}

interface Job extends Attempt {
  /** Bytes of the budget (and of maxMemoryBytes) held until the job ends. */
  charge: number;
  /** Fast mode: the envelope exists only in memory (it counts against the spool's bounds, spooled at shutdown). */
  memoryOnly: boolean;
  /** A replayed row's body bytes, counted in `replayingBytes` until the job ends. */
  replaying?: number | undefined;
}

const REPLAY_TICK_MS = 200;
/**
 * Most rows one lease takes, and what replay waits to have room for before leasing again: a lease per finished send
 * costs a transaction per row, and a lease of hundreds of rows blocks the event loop (decision 029).
 */
const LEASE_BATCH_ROWS = 32;
const EXPIRE_EVERY_MS = 30_000;

export function createDelivery(options: DeliveryOptions): Delivery {
  const { spool, metrics, log, mode, budget } = options;
  const writer = createSpoolWriter(spool, log);
  const outage = createOutage({
    concurrency: options.concurrency,
    retryBaseMs: options.retryBaseMs,
    retryMaxMs: options.retryMaxMs,
    onDown: ({ status, detail }, url) =>
      log.warn({ status, detail, url }, 'upstream failed; spooling until it is back'),
    onBack: ({ status }) => {
      spool.wakeAll(Date.now());
      log.info({ status, spooled: spool.count }, 'upstream is back; replaying the spool');
    },
  });
  let closing = false;
  /** Set once shutdown has spooled what was still in flight: a send failing after that leaves nothing to do. */
  let abandoned = false;
  let active = 0;
  /** Bytes charged by jobs (bounded by maxMemoryBytes and by the budget). */
  let heldBytes = 0;
  /**
   * Body bytes of replayed rows being sent, bounded by maxMemoryBytes too: a file row costs little memory, and many
   * large spooled envelopes sent at once finished together, acknowledged none before and held live traffic back.
   */
  let replayingBytes = 0;
  /** Replayed rows being sent, bounded by the pace's window. */
  let replayCount = 0;
  /** Fast mode's memory-only envelopes, beside what the spool keeps (spool.heldBy). */
  const memoryOnly = new MemoryOnly<Job>();
  const limits = {
    maxEnvelopes: options.maxSpoolEnvelopes,
    maxBytes: options.maxSpoolBytes,
    perClientEnvelopes: options.perClientSpoolEnvelopes,
    perClientBytes: options.perClientSpoolBytes,
  };
  const inFlight = new Set<Promise<void>>();
  /** Accepted envelopes to send now, in order. */
  const waiting: Job[] = [];

  const attempt = createAttempts({ ...options, writer, outage, abandoned: () => abandoned });

  /** Runs one job, counted against the concurrency and awaited by shutdown; its charge is released at the end. */
  const run = (job: Job) => {
    active++;
    const finished = () => {
      release(job);
      active--;
      inFlight.delete(done);
      pump();
    };
    const done: Promise<void> = attempt(job).then(finished, (error: unknown) => {
      log.error({ err: error }, 'delivering an envelope failed unexpectedly');
      finished();
    });
    inFlight.add(done);
  };
  const release = (job: Job) => {
    if (job.replaying !== undefined) {
      replayingBytes -= job.replaying;
      replayCount--;
      job.replaying = undefined;
    }
    if (job.charge > 0) {
      budget.release(job.charge);
      heldBytes -= job.charge;
      job.charge = 0;
    }
    memoryOnly.forget(job);
  };

  /**
   * Fast mode's accepted envelopes are started once per turn of the event loop, after every answer of that turn is
   * written: the sends go out together, not one between two answers.
   */
  let pumpScheduled = false;
  const pumpAfterTurn = () => {
    if (pumpScheduled) return;
    pumpScheduled = true;
    setImmediate(() => {
      pumpScheduled = false;
      pump();
    });
  };
  const pace = startReplayPace({
    maxLoopDelayMs: options.replayMaxLoopDelayMs,
    maxWindow: replayWindowLimit(options.concurrency),
    onGrow: () => pump(),
    onWindow: (window) => metrics.replayWindow.set(window),
    ...(options.loopDelay && { loopDelay: options.loopDelay }),
  });
  /**
   * Starts accepted envelopes, then due spool rows within the pace's window, all within the concurrency (one probe
   * while upstream is down). Replay leases once a quarter of its window (at most a batch) is free, or whatever fits
   * when none of it is in flight.
   */
  const pump = () => {
    if (closing) return;
    const limit = outage.sendLimit;
    while (active < limit && waiting.length > 0) run(waiting.shift() as Job);
    if (spool.unleasedCount === 0) return;
    const free = Math.min(limit - active, pace.window - replayCount);
    const batch = Math.max(1, Math.min(LEASE_BATCH_ROWS, Math.floor(pace.window / 4), limit));
    if (free >= batch || (free > 0 && replayCount === 0)) replay(Math.min(free, LEASE_BATCH_ROWS));
  };
  /** Leases as many due rows as the free memory holds (rows past their age or destination are dropped). */
  const replay = (maxRows: number) => {
    const maxBytes = Math.min(budget.limit - budget.used, options.maxMemoryBytes - heldBytes);
    const maxSize = options.maxMemoryBytes - replayingBytes;
    if (maxBytes <= 0 || maxSize <= 0) return; // replay waits until bytes are free
    const now = Date.now();
    const lease = spool.lease({
      now,
      maxRows,
      maxBytes,
      maxSize,
      expireBefore: now - options.maxAgeMs,
      isAllowed: options.isAllowedDestination,
    });
    reportDropped(lease);
    if (lease.rows.length === 0) return;
    if (!budget.take(lease.bytes)) {
      // Cannot happen (measured above, in the same turn), but a lease the budget did not pay for is given back.
      for (const row of lease.rows) spool.reschedule(row.id, row.attempts, now);
      return;
    }
    heldBytes += lease.bytes;
    for (const row of lease.rows) {
      replayingBytes += row.size;
      replayCount++;
      run({ entry: row, id: row.id, charge: row.memoryBytes, memoryOnly: false, replaying: row.size });
    }
  };
  const reportDropped = (dropped: Pick<Lease, 'expired' | 'notAllowed'>) =>
    reportSpoolDropped(metrics, log, options.maxAgeMs, dropped);

  /** Commits an accepted envelope to the spool; when it is to be sent now, its row stays leased meanwhile. */
  const spoolFirst = async (entry: SpoolEntry, sendNow: boolean): Promise<void> => {
    const job: Job = { entry, id: undefined, charge: sendNow ? entry.body.length : 0, memoryOnly: false };
    try {
      job.id = await writer.write(entry, sendNow);
    } catch (error) {
      release(job);
      throw error;
    }
    if (!sendNow) return;
    // Shutdown came while the row was written: it stays leased on disk and is due at the next start.
    if (closing) release(job);
    else {
      waiting.push(job);
      pump();
    }
  };

  const replayTimer = setInterval(pump, REPLAY_TICK_MS);
  replayTimer.unref();
  const expireTimer = setInterval(() => {
    reportDropped({ expired: spool.expire(Date.now() - options.maxAgeMs), notAllowed: 0 });
  }, EXPIRE_EVERY_MS);
  expireTimer.unref();

  return {
    get memoryCount() {
      return memoryOnly.count;
    },
    accept(partial) {
      if (closing) throw new RelayError('draining', 'the relay is shutting down; retry on another instance');
      const client = partial.client === undefined ? undefined : options.clientNetwork(partial.client);
      const entry: SpoolEntry = { ...partial, client, attempts: 0 };
      const size = entry.body.length;
      memoryOnly.refuseWhenFull(spool, limits, client, size);
      // Held and sent now only while upstream is up and memory has room; otherwise replay takes it from disk.
      const sendNow = outage.healthy && heldBytes + size <= options.maxMemoryBytes && budget.take(size);
      if (sendNow) heldBytes += size;
      if (mode === 'fast' && sendNow) {
        // Safe by fast mode's promise already: no promise to wait for (the tunnel answers in the same turn).
        const job: Job = { entry, id: undefined, charge: size, memoryOnly: false };
        memoryOnly.hold(job);
        waiting.push(job);
        pumpAfterTurn();
        return undefined;
      }
      return spoolFirst(entry, sendNow);
    },
    async close(timeoutMs) {
      closing = true;
      pace.stop();
      clearInterval(replayTimer);
      clearInterval(expireTimer);
      await writer.flush(); // body files being written join their batch, which commits
      // Jobs that never started: on disk already (durable) or written now (fast).
      const unsent = waiting.splice(0);
      const toSpool = unsent.filter((job) => job.id === undefined);
      await writer.writeNow(toSpool.map((job) => ({ entry: job.entry as SpoolEntry, nextAttemptAt: 0 })));
      for (const job of unsent) release(job);
      if (inFlight.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.all(inFlight),
          new Promise((resolve) => {
            timer = setTimeout(resolve, timeoutMs);
          }),
        ]);
        clearTimeout(timer);
      }
      await writer.flush();
      // Still in flight after the timeout: keep a copy (at-least-once; upstream dedupes by event id). Their bytes
      // stay charged until the forwarder's close aborts the sends.
      const stuck = [...memoryOnly.jobs].filter((job) => !job.spooling); // the rest were written as their send failed
      abandoned = true; // set before writing: a send failing meanwhile must not spool a second copy
      await writer.writeNow(stuck.map((job) => ({ entry: job.entry as SpoolEntry, nextAttemptAt: 0 })));
      for (const job of stuck) memoryOnly.forget(job);
      if (stuck.length + toSpool.length > 0) {
        log.info({ spooled: stuck.length + toSpool.length }, 'spooled envelopes still in memory at shutdown');
      }
    },
  };
}
