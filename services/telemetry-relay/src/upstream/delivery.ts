import type { FastifyBaseLogger } from 'fastify';
import { shiftSentAt } from '../envelope/sent-at.ts';
import { labelled, type RelayMetrics } from '../ops/metrics.ts';
import { RelayError } from '../pipeline/errors.ts';
import type { RateLimits } from '../pipeline/rate-limit.ts';
import { SpoolBodyLostError } from './body-files.ts';
import type { Forwarder, ForwardResult } from './forward.ts';
import type { Spool, SpoolEntry, SpoolRecord } from './spool.ts';

/**
 * Stage 8: deliver every accepted envelope at least once.
 *
 * - `durable` mode: an envelope is committed to the spool before the browser gets its 200 (all envelopes of one
 *   tick in one transaction; a large body is written to its own file first, off the event loop), then sent at
 *   once; the row is deleted when upstream answers.
 * - `fast` mode: the 200 comes first and the envelope is sent from memory; it reaches the spool only if sending
 *   fails, if memory is full, or at shutdown. A crash of the process loses what is in memory.
 *
 * When a send fails (network error, timeout, 5xx), the envelope is rescheduled with exponential backoff and equal
 * jitter and the upstream counts as down: new envelopes go straight to the spool, and one probe at a time (the
 * oldest due envelope) finds out when it is back; then everything waiting is due at once, oldest first.
 * Rate-limited (429) and rejected (4xx) envelopes are dropped and counted: retrying would get the same answer.
 * The spool is bounded by count and bytes (new envelopes are refused with 429 + Retry-After when it is full) and
 * by age (older envelopes are dropped and counted).
 */

export type SpoolMode = 'durable' | 'fast';

export interface DeliveryOptions {
  mode: SpoolMode;
  spool: Spool;
  forwarder: Forwarder;
  rateLimits: RateLimits;
  metrics: RelayMetrics;
  log: FastifyBaseLogger;
  maxSpoolEnvelopes: number;
  maxSpoolBytes: number;
  maxAgeMs: number;
  /** Most bytes of accepted envelopes held in memory until sent; beyond it they wait on disk (both modes). */
  maxMemoryBytes: number;
  /** Most envelopes sent at once. */
  concurrency: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

export interface Delivery {
  /** Resolves once the envelope is safe by the mode's promise; throws RelayError('spool_full') when full. */
  accept(entry: Omit<SpoolEntry, 'attempts'>): Promise<void>;
  /** Envelopes held in memory (fast mode) not yet delivered or spooled. */
  readonly memoryCount: number;
  /** Stops taking work, waits up to `timeoutMs` for sends in flight, spools what is still in memory. */
  close(timeoutMs: number): Promise<void>;
}

interface Job {
  entry: SpoolEntry;
  /** Spool row, when the envelope is on disk. */
  id?: number;
  /** Accepted in this process and held in memory until sent (counted in `heldBytes`). */
  held: boolean;
}

const REPLAY_TICK_MS = 200;
const EXPIRE_EVERY_MS = 30_000;
/** Held longer than this, an envelope's sent_at is moved forward (Sentry corrects drift from 55 minutes). */
const SHIFT_SENT_AT_AFTER_MS = 60_000;

export function createDelivery(options: DeliveryOptions): Delivery {
  const { spool, forwarder, metrics, log, mode } = options;
  let healthy = true;
  let closing = false;
  /** Set once shutdown has spooled what was still in flight. */
  let abandoned = false;
  let active = 0;
  /** Bodies held in memory by accepted jobs not yet sent (bounded by maxMemoryBytes). */
  let heldBytes = 0;
  /** Fast-mode jobs that exist only in memory (count against the spool's bounds, spooled at shutdown). */
  let memoryOnlyBytes = 0;
  let memoryOnlyCount = 0;
  const inFlight = new Set<Promise<void>>();
  /** Unsent jobs held in memory only (fast mode): spooled at shutdown. */
  const memoryJobs = new Set<Job>();
  const waiting: Job[] = [];

  // Group commit: every envelope accepted during one tick is written in one transaction. A large body is written
  // to its own file first (off the event loop); its row joins the batch once the file is on disk.
  let batch: Array<{
    entry: SpoolEntry;
    leased: boolean;
    bodyFile: string | undefined;
    resolve: (id: number) => void;
    reject: (e: Error) => void;
  }> = [];
  const flushBatch = () => {
    const current = batch;
    batch = [];
    try {
      const ids = spool.insert(current.map((item) => ({ ...item, nextAttemptAt: 0 })));
      for (const [i, item] of current.entries()) item.resolve(ids[i] as number);
    } catch (error) {
      for (const item of current) item.reject(error as Error);
    }
  };
  /** Durable-mode writes not committed yet: shutdown waits for them. */
  const spooling = new Set<Promise<number>>();
  const joinBatch = (entry: SpoolEntry, leased: boolean, bodyFile: string | undefined) =>
    new Promise<number>((resolve, reject) => {
      if (batch.length === 0) setImmediate(flushBatch);
      batch.push({ entry, leased, bodyFile, resolve, reject });
    });
  const writeToSpool = (entry: SpoolEntry, leased: boolean) => {
    const writing = spool.writeBody(entry.body);
    if (writing === undefined) return joinBatch(entry, leased, undefined);
    const written = writing.then((bodyFile) => joinBatch(entry, leased, bodyFile));
    spooling.add(written);
    return written.finally(() => spooling.delete(written));
  };
  /** Spools envelopes now, outside the group commit (failed sends, shutdown): large bodies to files first. */
  const spoolNow = async (entries: ReadonlyArray<{ entry: SpoolEntry; nextAttemptAt: number }>) => {
    const bodyFiles = await Promise.all(entries.map(({ entry }) => spool.writeBody(entry.body)));
    spool.insert(entries.map((item, i) => ({ ...item, leased: false, bodyFile: bodyFiles[i] })));
  };
  // Delivered rows are deleted in batches too (a crash before the delete means one more delivery, not a loss).
  let removals: number[] = [];
  const flushRemovals = () => {
    const current = removals;
    removals = [];
    try {
      spool.remove(current);
    } catch (error) {
      // Only after shutdown closed the spool: these rows are delivered again at the next start.
      log.warn({ err: error, rows: current.length }, 'could not delete delivered envelopes from the spool');
    }
  };
  const removeFromSpool = (id: number) => {
    if (removals.length === 0) setImmediate(flushRemovals);
    removals.push(id);
  };

  const backoff = (attempts: number) => {
    const ceiling = Math.min(options.retryMaxMs, options.retryBaseMs * 2 ** Math.max(0, attempts - 1));
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  };

  const upstreamRequests = labelled(metrics.upstreamRequests);
  const upstreamDuration = labelled(metrics.upstreamDuration);
  const forwarded = labelled(metrics.forwarded);
  const record = (job: Job, result: ForwardResult, seconds: number) => {
    upstreamRequests(result.outcome, String(result.status)).inc();
    upstreamDuration(result.outcome).observe(seconds);
    if (result.limits.length > 0) options.rateLimits.update(job.entry.dsnKey, result.limits);
  };

  const send = async (job: Job): Promise<void> => {
    const { entry } = job;
    const held = Date.now() - entry.acceptedAt;
    const body = held > SHIFT_SENT_AT_AFTER_MS ? shiftSentAt(entry.body, held) : entry.body;
    const started = performance.now();
    const result = await forwarder.send(entry.url, body, entry.headers);
    record(job, result, (performance.now() - started) / 1000);

    if (result.outcome === 'failed') {
      // After shutdown kept its copies (below), an aborted send leaves nothing to do: the row is due again at the
      // next start, or the copy of a fast-mode envelope was spooled.
      if (abandoned) return;
      if (healthy) {
        log.warn(
          { status: result.status, detail: result.detail, url: entry.url },
          'upstream failed; spooling until it is back',
        );
      }
      healthy = false;
      const attempts = entry.attempts + 1;
      const next = Date.now() + backoff(attempts);
      if (job.id !== undefined) spool.reschedule(job.id, attempts, next);
      else await spoolNow([{ entry: { ...entry, attempts }, nextAttemptAt: next }]);
      return;
    }
    if (!healthy) {
      healthy = true;
      spool.wakeAll(Date.now());
      log.info({ status: result.status, spooled: spool.count }, 'upstream is back; replaying the spool');
    }
    if (job.id !== undefined) removeFromSpool(job.id);
    if (result.outcome === 'delivered') {
      forwarded(entry.project).inc();
    } else {
      metrics.spoolDropped.inc({ reason: result.outcome });
      log.warn(
        { status: result.status, detail: result.detail, project: entry.project, outcome: result.outcome },
        result.outcome === 'rate_limited'
          ? 'upstream rate-limited an envelope; dropped'
          : 'upstream rejected an envelope; dropped',
      );
    }
  };

  /** Runs one delivery (`work`), counted against the concurrency and awaited by shutdown. */
  const track = (work: Promise<void>) => {
    active++;
    const done = work
      .catch((error: unknown) => {
        log.error({ err: error }, 'delivering an envelope failed unexpectedly');
      })
      .finally(() => {
        active--;
        inFlight.delete(done);
        pump();
      });
    inFlight.add(done);
  };
  const run = (job: Job) => track(send(job).finally(() => release(job)));
  /** A leased spool row: its body is loaded first when it is in a file (it stays leased meanwhile). */
  const runLeased = (row: SpoolRecord) => {
    if (row.body !== undefined) {
      run({ entry: { ...row, body: row.body }, id: row.id, held: false });
      return;
    }
    track(
      spool.readBody(row).then(
        (body) => send({ entry: { ...row, body }, id: row.id, held: false }),
        (error: unknown) => {
          if (error instanceof SpoolBodyLostError) {
            if (spool.remove([row.id]) === 0) return; // expired meanwhile
            metrics.spoolDropped.inc({ reason: 'lost' });
            log.error({ err: error, project: row.project, acceptedAt: row.acceptedAt }, 'a spooled envelope was lost');
            return;
          }
          // Unreadable for now (an I/O error, too many open files): it stays on disk and is tried again later.
          spool.reschedule(row.id, row.attempts, Date.now() + backoff(row.attempts + 1));
          log.error({ err: error }, 'could not read a spooled envelope; retrying later');
        },
      ),
    );
  };

  /** Starts waiting jobs, then due spool rows, within the concurrency (one probe while upstream is down). */
  const pump = () => {
    if (closing) return;
    const limit = healthy ? options.concurrency : 1;
    while (active < limit && waiting.length > 0) run(waiting.shift() as Job);
    if (active < limit && spool.count > 0) {
      for (const row of spool.leaseDue(Date.now(), limit - active)) runLeased(row);
    }
  };
  const release = (job: Job) => {
    if (job.held) heldBytes -= job.entry.body.length;
    job.held = false;
    if (memoryJobs.delete(job)) {
      memoryOnlyBytes -= job.entry.body.length;
      memoryOnlyCount--;
    }
  };

  const replayTimer = setInterval(pump, REPLAY_TICK_MS);
  replayTimer.unref();
  const expireTimer = setInterval(() => {
    const expired = spool.expire(Date.now() - options.maxAgeMs);
    if (expired > 0) {
      metrics.spoolDropped.inc({ reason: 'expired' }, expired);
      log.error({ expired, maxAgeMs: options.maxAgeMs }, 'spooled envelopes expired before upstream took them');
    }
  }, EXPIRE_EVERY_MS);
  expireTimer.unref();

  return {
    get memoryCount() {
      return memoryOnlyCount;
    },
    async accept(partial) {
      if (closing) throw new RelayError('draining', 'the relay is shutting down; retry on another instance');
      const entry: SpoolEntry = { ...partial, attempts: 0 };
      const size = entry.body.length;
      const count = spool.count + memoryOnlyCount;
      const bytes = spool.bytes + memoryOnlyBytes;
      if (count >= options.maxSpoolEnvelopes || bytes + size > options.maxSpoolBytes) {
        throw new RelayError(
          'spool_full',
          `the relay holds ${count} undelivered envelopes (${bytes} bytes), its limit; upstream is not taking them`,
          { 'retry-after': '60', 'x-sentry-rate-limits': '60::key:relay_spool_full' },
        );
      }
      // Send now only while upstream is up and memory holds it; otherwise the replay loop takes it from disk.
      const sendNow = healthy && heldBytes + size <= options.maxMemoryBytes;
      if (mode === 'fast' && sendNow) {
        const job: Job = { entry, held: true };
        memoryJobs.add(job);
        heldBytes += size;
        memoryOnlyBytes += size;
        memoryOnlyCount++;
        waiting.push(job);
        pump();
        return;
      }
      if (sendNow) heldBytes += size; // reserved now, so concurrent accepts see it
      let id: number;
      try {
        id = await writeToSpool(entry, sendNow);
      } catch (error) {
        if (sendNow) heldBytes -= size;
        throw error;
      }
      if (sendNow) {
        waiting.push({ entry, id, held: true });
        pump();
      }
    },
    async close(timeoutMs) {
      closing = true;
      clearInterval(replayTimer);
      clearInterval(expireTimer);
      await Promise.allSettled(spooling); // body files being written join their batch, which commits
      if (batch.length > 0) flushBatch();
      if (removals.length > 0) flushRemovals();
      // Jobs that never started: on disk already (durable) or written now (fast).
      const unsent = waiting.splice(0);
      const toSpool = unsent.filter((job) => job.id === undefined);
      for (const job of unsent) release(job);
      await spoolNow(toSpool.map((job) => ({ entry: job.entry, nextAttemptAt: 0 })));
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
      if (removals.length > 0) flushRemovals();
      // Still in flight after the timeout: keep a copy (at-least-once; upstream dedupes by event id).
      const stuck = [...memoryJobs];
      memoryJobs.clear();
      abandoned = true; // set before writing: a send failing meanwhile must not spool a second copy
      await spoolNow(stuck.map((job) => ({ entry: job.entry, nextAttemptAt: 0 })));
      if (stuck.length + toSpool.length > 0) {
        log.info({ spooled: stuck.length + toSpool.length }, 'spooled envelopes still in memory at shutdown');
      }
    },
  };
}
