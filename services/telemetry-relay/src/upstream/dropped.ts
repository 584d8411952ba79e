// Spooled envelopes given up on (past SPOOL_MAX_AGE, a destination no longer configured, a body file lost): counted
// in relay_envelopes_dropped_total and logged, since each is an accepted envelope that never reaches upstream.
import type { FastifyBaseLogger } from 'fastify';
import type { RelayMetrics } from '../ops/metrics.ts';
import type { Lease, Spool } from '../spool/spool.ts';

export function reportSpoolDropped(
  metrics: RelayMetrics,
  log: FastifyBaseLogger,
  maxAgeMs: number,
  { expired, notAllowed }: Pick<Lease, 'expired' | 'notAllowed'>,
): void {
  if (expired > 0) {
    metrics.spoolDropped.inc({ reason: 'expired' }, expired);
    log.error({ expired, maxAgeMs }, 'spooled envelopes expired before upstream took them');
  }
  if (notAllowed > 0) {
    metrics.spoolDropped.inc({ reason: 'not_allowed' }, notAllowed);
    log.warn({ dropped: notAllowed }, 'spooled envelopes dropped: the configuration no longer allows where they go');
  }
}

/** What opening the spool found: rows lost or expired while the relay was down, and orphaned body files removed. */
export function reportSpoolRecovered(
  metrics: RelayMetrics,
  log: FastifyBaseLogger,
  { lostRows, orphanFiles, expiredRows }: Spool['recovered'],
  spool: { dir: string; maxAgeMs: number },
): void {
  if (lostRows > 0) {
    metrics.spoolDropped.inc({ reason: 'lost' }, lostRows);
    log.error({ lost: lostRows, dir: spool.dir }, 'spooled envelopes lost: their body files were missing');
  }
  if (expiredRows > 0) {
    metrics.spoolDropped.inc({ reason: 'expired' }, expiredRows);
    log.error(
      { expired: expiredRows, maxAgeMs: spool.maxAgeMs },
      'spooled envelopes expired before upstream took them',
    );
  }
  if (orphanFiles > 0) {
    log.info(
      { removed: orphanFiles },
      'removed body files of envelopes not in the spool (an interrupted write or delete)',
    );
  }
}
