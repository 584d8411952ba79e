// Every accepted envelope reaches upstream at least once: `accept` keeps it by SPOOL_MODE's promise, `pump`
// sends held then spooled envelopes oldest first within the concurrency and memory budget, `close` spools the rest.
// Short of memory it waits on disk, never dropped; a full spool is a 503, a client over its share a 429 (decision 011).
import type { FastifyBaseLogger } from 'fastify';
import { RelayError } from '../core/errors.ts';
import type { MemoryBudget } from '../core/memory/budget.ts';
import type { SpoolMode } from '../core/types.ts';
import type { RelayMetrics } from '../ops/metrics.ts';
import type { Spool, SpoolEntry } from '../spool/spool.ts';
import { createSpoolWriter, type SpoolWriter } from '../spool/writer.ts';
import { createAttempts, type RateLimitLearner } from './attempt.ts';
import type { Forwarder } from './forward.ts';
import { type Job, Jobs } from './jobs.ts';
import { createOutage, type Outage } from './outage.ts';
import { replay, replayRows, reportDropped } from './replay.ts';
import { replayWindowLimit, startReplayPace } from './replay-pace.ts';
import { spoolTheRest } from './shutdown.ts';

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

const REPLAY_TICK_MS = 200;
const EXPIRE_EVERY_MS = 30_000;

export function createDelivery(options: DeliveryOptions): Delivery {
  const { spool, metrics, log } = options;
  const writer = createSpoolWriter(spool, log);
  const outage = createUpstreamOutage(options);
  let closing = false;
  /** Set once shutdown has spooled what was still in flight: a send failing after that leaves nothing to do. */
  let abandoned = false;
  const attempt = createAttempts({ ...options, writer, outage, abandoned: () => abandoned });
  const jobs = new Jobs(options.budget, attempt, log, () => pump());
  const pace = startReplayPace({
    maxLoopDelayMs: options.replayMaxLoopDelayMs,
    maxWindow: replayWindowLimit(options.concurrency),
    onGrow: () => pump(),
    onWindow: (window) => metrics.replayWindow.set(window),
    ...(options.loopDelay && { loopDelay: options.loopDelay }),
  });
  /** Starts accepted envelopes, then due spool rows, all within the concurrency (one probe while upstream is down). */
  const pump = () => {
    if (closing) return;
    const limit = outage.sendLimit;
    while (jobs.active < limit && jobs.waiting.length > 0) jobs.run(jobs.waiting.shift() as Job);
    if (spool.unleasedCount === 0) return;
    const rows = replayRows(limit - jobs.active, pace.window, jobs.replayCount, limit);
    if (rows > 0) replay(jobs, options, rows);
  };
  const pumpAfterTurn = afterTurn(() => pump());
  const accept = acceptInto(options, { jobs, writer, outage, pump, pumpAfterTurn, closing: () => closing });

  const replayTimer = setInterval(pump, REPLAY_TICK_MS);
  replayTimer.unref();
  const expireTimer = setInterval(() => {
    reportDropped(options, { expired: spool.expire(Date.now() - options.maxAgeMs), notAllowed: 0 });
  }, EXPIRE_EVERY_MS);
  expireTimer.unref();

  return {
    get memoryCount() {
      return jobs.memoryOnly.count;
    },
    accept,
    async close(timeoutMs) {
      closing = true;
      pace.stop();
      clearInterval(replayTimer);
      clearInterval(expireTimer);
      await spoolTheRest(jobs, writer, log, timeoutMs, () => {
        abandoned = true;
      });
    },
  };
}

/** Upstream's health: while it is down delivery spools, and replays once it is back. */
function createUpstreamOutage({ concurrency, retryBaseMs, retryMaxMs, spool, log }: DeliveryOptions): Outage {
  return createOutage({
    concurrency,
    retryBaseMs,
    retryMaxMs,
    onDown: ({ status, detail }, url) =>
      log.warn({ status, detail, url }, 'upstream failed; spooling until it is back'),
    onBack: ({ status }) => {
      spool.wakeAll(Date.now());
      log.info({ status, spooled: spool.count }, 'upstream is back; replaying the spool');
    },
  });
}

/**
 * `run` once per turn of the event loop, after every answer of that turn is written: fast mode's sends go out
 * together, not one between two answers.
 */
function afterTurn(run: () => void): () => void {
  let scheduled = false;
  return () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      run();
    });
  };
}

interface AcceptParts {
  jobs: Jobs;
  writer: SpoolWriter;
  outage: Outage;
  pump(): void;
  pumpAfterTurn(): void;
  closing(): boolean;
}

/** Delivery's `accept`: refused when full or closing, held and sent now when it can be, else spooled first. */
function acceptInto(options: DeliveryOptions, parts: AcceptParts): Delivery['accept'] {
  const { jobs, outage } = parts;
  const limits = {
    maxEnvelopes: options.maxSpoolEnvelopes,
    maxBytes: options.maxSpoolBytes,
    perClientEnvelopes: options.perClientSpoolEnvelopes,
    perClientBytes: options.perClientSpoolBytes,
  };
  return (partial) => {
    if (parts.closing()) throw new RelayError('draining', 'the relay is shutting down; retry on another instance');
    const client = partial.client === undefined ? undefined : options.clientNetwork(partial.client);
    const entry: SpoolEntry = { ...partial, client, attempts: 0 };
    const size = entry.body.length;
    jobs.memoryOnly.refuseWhenFull(options.spool, limits, client, size);
    // Held and sent now only while upstream is up and memory has room; otherwise replay takes it from disk.
    const sendNow = outage.healthy && jobs.heldBytes + size <= options.maxMemoryBytes && jobs.charge(size);
    if (options.mode === 'fast' && sendNow) {
      // Safe by fast mode's promise already: no promise to wait for (the tunnel answers in the same turn).
      const job: Job = { entry, id: undefined, charge: size, memoryOnly: false };
      jobs.memoryOnly.hold(job);
      jobs.waiting.push(job);
      parts.pumpAfterTurn();
      return undefined;
    }
    return spoolFirst(entry, sendNow, parts);
  };
}

/** Commits an accepted envelope to the spool; when it is to be sent now, its row stays leased meanwhile. */
async function spoolFirst(entry: SpoolEntry, sendNow: boolean, parts: AcceptParts): Promise<void> {
  const { jobs } = parts;
  const job: Job = { entry, id: undefined, charge: sendNow ? entry.body.length : 0, memoryOnly: false };
  try {
    job.id = await parts.writer.write(entry, sendNow);
  } catch (error) {
    jobs.release(job);
    throw error;
  }
  if (!sendNow) return;
  // Shutdown came while the row was written: it stays leased on disk and is due at the next start.
  if (parts.closing()) jobs.release(job);
  else {
    jobs.waiting.push(job);
    parts.pump();
  }
}
