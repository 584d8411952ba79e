// Spooled envelopes replay or expiry gave up on (past SPOOL_MAX_AGE, or a destination no longer configured): counted
// in relay_envelopes_dropped_total and logged, since each is an accepted envelope that never reaches upstream.
import type { FastifyBaseLogger } from 'fastify';
import type { RelayMetrics } from '../ops/metrics.ts';
import type { Lease } from '../spool/spool.ts';

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
