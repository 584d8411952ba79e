// Replay: due spool rows leased by the memory they take and started as jobs; rows past their age or destination
// are dropped as the lease finds them.
import type { FastifyBaseLogger } from 'fastify';
import type { MemoryBudget } from '../core/memory/budget.ts';
import type { RelayMetrics } from '../ops/metrics.ts';
import type { Lease, Spool } from '../spool/spool.ts';
import { reportSpoolDropped } from './dropped.ts';
import type { Jobs } from './jobs.ts';

/**
 * Most rows one lease takes, and what replay waits to have room for before leasing again: a lease per finished send
 * costs a transaction per row, and a lease of hundreds of rows blocks the event loop (decision 029).
 */
const LEASE_BATCH_ROWS = 32;

export interface ReplayOptions {
  spool: Spool;
  budget: MemoryBudget;
  metrics: RelayMetrics;
  log: FastifyBaseLogger;
  maxMemoryBytes: number;
  maxAgeMs: number;
  isAllowedDestination(target: { url: string; dsnKey: string }): boolean;
}

/**
 * Rows to lease now with `sendsFree` sends open and `replayCount` rows of the pace's `window` in flight: once a
 * quarter of the window (at most a batch) is free, or whatever fits when none is in flight; 0 while replay waits.
 */
export function replayRows(sendsFree: number, window: number, replayCount: number, sendLimit: number): number {
  const free = Math.min(sendsFree, window - replayCount);
  const batch = Math.max(1, Math.min(LEASE_BATCH_ROWS, Math.floor(window / 4), sendLimit));
  return free >= batch || (free > 0 && replayCount === 0) ? Math.min(free, LEASE_BATCH_ROWS) : 0;
}

/** Leases up to `maxRows` due rows, as many as the free memory holds, and runs them. */
export function replay(jobs: Jobs, options: ReplayOptions, maxRows: number): void {
  const { spool, budget } = options;
  const maxBytes = Math.min(budget.limit - budget.used, options.maxMemoryBytes - jobs.heldBytes);
  const maxSize = options.maxMemoryBytes - jobs.replayingBytes;
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
  reportDropped(options, lease);
  if (lease.rows.length === 0) return;
  if (!jobs.charge(lease.bytes)) {
    // Cannot happen (measured above, in the same turn), but a lease the budget did not pay for is given back.
    for (const row of lease.rows) spool.reschedule(row.id, row.attempts, now);
    return;
  }
  for (const row of lease.rows) {
    jobs.replayingBytes += row.size;
    jobs.replayCount++;
    jobs.run({ entry: row, id: row.id, charge: row.memoryBytes, memoryOnly: false, replaying: row.size });
  }
}

export function reportDropped(options: ReplayOptions, dropped: Pick<Lease, 'expired' | 'notAllowed'>): void {
  reportSpoolDropped(options.metrics, options.log, options.maxAgeMs, dropped);
}
