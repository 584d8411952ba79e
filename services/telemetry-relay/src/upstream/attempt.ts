// One send and what upstream's answer means: delivered (row acknowledged), dropped and counted (429, other 4xx), or
// failed (rescheduled with backoff, or spooled if it was only in memory). A spooled body file is streamed; an
// envelope held over a minute has its sent_at moved forward.
import type { FastifyBaseLogger } from 'fastify';
import type { ParsedLimit } from '../envelope/rate-limit-header.ts';
import { shiftSentAt } from '../envelope/sent-at.ts';
import { counting, labelled, type RelayMetrics } from '../ops/metrics.ts';
import { SpoolBodyLostError } from '../spool/body-files.ts';
import type { Spool, SpoolEntry, SpoolRecord } from '../spool/spool.ts';
import type { SpoolWriter } from '../spool/writer.ts';
import type { Forwarder, ForwardResult } from './forward.ts';
import type { Outage } from './outage.ts';
import { type FileBody, openFileBody } from './streamed-body.ts';

export interface Attempt {
  /** An accepted envelope (its body in memory), or a leased spool row (its body in memory or in a file). */
  entry: SpoolEntry | SpoolRecord;
  /** Its spool row, when it is on disk. */
  id: number | undefined;
  /** Set as a failed envelope held only in memory starts being written to the spool: shutdown must not write it too. */
  spooling?: boolean;
}

/** Learns the limits upstream announces (pipeline/rate-limit.ts's RateLimits, which the tunnel enforces). */
export interface RateLimitLearner {
  update(dsnKey: string, limits: readonly ParsedLimit[]): void;
}

export interface AttemptOptions {
  spool: Spool;
  writer: SpoolWriter;
  forwarder: Forwarder;
  outage: Outage;
  rateLimits: RateLimitLearner;
  metrics: RelayMetrics;
  log: FastifyBaseLogger;
  /** Shutdown has kept a copy of everything in flight: a failure then leaves nothing to do. */
  abandoned(): boolean;
}

/** Held longer than this, an envelope's sent_at is moved forward (Sentry corrects drift from 55 minutes). */
const SHIFT_SENT_AT_AFTER_MS = 60_000;

export function createAttempts(options: AttemptOptions): (attempt: Attempt) => Promise<void> {
  const { spool, writer, forwarder, outage, metrics, log } = options;
  const upstreamRequests = counting(metrics.upstreamRequests);
  const upstreamDuration = labelled(metrics.upstreamDuration);
  const forwarded = counting(metrics.forwarded);

  /** What the answer means for the envelope; a promise only when a failed envelope is being spooled. */
  const settle = (attempt: Attempt, result: ForwardResult, started: number): Promise<void> | undefined => {
    const { entry, id } = attempt;
    upstreamRequests(result.outcome, String(result.status)).inc();
    upstreamDuration(result.outcome).observe((performance.now() - started) / 1000);
    if (result.limits.length > 0) options.rateLimits.update(entry.dsnKey, result.limits);

    if (result.outcome === 'failed') {
      // Aborted at shutdown: the row is due again at the next start, or a copy of the envelope was spooled.
      if (options.abandoned()) return undefined;
      outage.failed(result, entry.url);
      const attempts = entry.attempts + 1;
      const next = Date.now() + outage.retryDelay(attempts);
      if (id !== undefined) {
        spool.reschedule(id, attempts, next);
        return undefined;
      }
      // Only accepted envelopes have no row, and they hold their body.
      attempt.spooling = true;
      return writer.writeNow([{ entry: { ...(entry as SpoolEntry), attempts }, nextAttemptAt: next }]);
    }
    outage.answered(result);
    if (id !== undefined) writer.ack(id);
    if (result.outcome === 'delivered') {
      forwarded(entry.project).inc();
      if (entry.items !== undefined) metrics.ledger.settled(entry.project, entry.items, 'forwarded', entry.acceptedAt);
      return undefined;
    }
    metrics.spoolDropped.inc({ reason: result.outcome });
    if (entry.items !== undefined) {
      const reason = result.outcome === 'rate_limited' ? 'upstream_ratelimited' : 'upstream_refused';
      metrics.ledger.settled(entry.project, entry.items, reason);
    }
    log.warn(
      { status: result.status, detail: result.detail, project: entry.project, outcome: result.outcome },
      result.outcome === 'rate_limited'
        ? 'upstream rate-limited an envelope; dropped'
        : 'upstream rejected an envelope; dropped',
    );
    return undefined;
  };
  const heldFor = (entry: { acceptedAt: number }) => {
    const held = Date.now() - entry.acceptedAt;
    return held > SHIFT_SENT_AT_AFTER_MS ? held : 0;
  };

  // A chain rather than an async function: one promise per send fewer on the hot path. A synchronous throw still
  // becomes a rejection, as from an async function: delivery counts on it to give the job's slot back.
  const sendHeld = (attempt: Attempt, body: Buffer): Promise<void> => {
    try {
      const { entry } = attempt;
      const shift = heldFor(entry);
      const started = performance.now();
      return forwarder
        .send(entry.url, shift > 0 ? shiftSentAt(body, shift) : body, entry.headers)
        .then((result) => settle(attempt, result, started));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  const sendFile = async (attempt: Attempt, row: SpoolRecord): Promise<void> => {
    let body: FileBody;
    try {
      body = await openFileBody(spool, row, heldFor(row));
    } catch (error) {
      bodyUnavailable(row, error);
      return;
    }
    const started = performance.now();
    let result: ForwardResult;
    try {
      result = await forwarder.send(row.url, body, row.headers);
    } finally {
      await body.handle.close();
    }
    await settle(attempt, result, started);
  };
  const bodyUnavailable = (row: SpoolRecord, error: unknown) => {
    if (error instanceof SpoolBodyLostError) {
      const removed = spool.remove([row.id]);
      if (row.items !== undefined) metrics.ledger.settled(row.project, row.items, removed === 0 ? 'expired' : 'lost');
      if (removed === 0) return; // expired meanwhile
      metrics.spoolDropped.inc({ reason: 'lost' });
      log.error({ err: error, project: row.project, acceptedAt: row.acceptedAt }, 'a spooled envelope was lost');
      return;
    }
    // Unreadable for now (an I/O error, too many open files): it stays on disk and is tried again later.
    spool.reschedule(row.id, row.attempts, Date.now() + outage.retryDelay(row.attempts + 1));
    log.error({ err: error }, 'could not read a spooled envelope; retrying later');
  };

  return (attempt) => {
    const { body } = attempt.entry;
    return body === undefined ? sendFile(attempt, attempt.entry as SpoolRecord) : sendHeld(attempt, body);
  };
}
