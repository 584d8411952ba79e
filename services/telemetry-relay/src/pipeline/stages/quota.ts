// The spike shield and local quotas, after the filters so what they drop spends no quota (../quota/).
import type { Target } from '../../core/types.ts';
import type { OutcomeAggregator } from '../client-report.ts';
import type { Flight } from '../flight.ts';
import { mergeLimitHeaders } from '../quota/quota.ts';
import type { QuotaStage } from '../quota/stage.ts';
import type { RateLimits } from '../rate-limit.ts';
import { proceed, refusal, type Stage } from '../stage.ts';

/** Drops what is over the spike shield or a quota; refuses (429) when that is every item left. */
export function quotaStage(
  quotas: QuotaStage,
  rateLimits: RateLimits,
  outcomes: OutcomeAggregator<Target>,
): Stage<Flight> {
  return (flight) => {
    const { dsn, project, settings } = flight.authorized;
    const quota = quotas.apply(settings.quotas, dsn.publicKey, project, flight.client, flight.items);
    for (const { type, category, reason } of quota.dropped)
      flight.dropped.push({ type, reason, ledger: reason, category });
    if (quota.discarded.length > 0) flight.discarded.push(...quota.discarded);
    if (quota.items.length === 0 && quota.headers['x-sentry-rate-limits'] !== undefined) {
      // As Sentry answers its own quotas; the drops go with the next client reports.
      outcomes.add(dsn.key, flight.target, flight.discarded);
      const headers = mergeLimitHeaders(rateLimits.headers(dsn.key), quota.headers);
      return refusal('quota_exceeded', `project ${dsn.projectId} is over a local quota`, headers);
    }
    flight.items = quota.items;
    flight.quotaHeaders = quota.headers;
    return proceed(flight);
  };
}
