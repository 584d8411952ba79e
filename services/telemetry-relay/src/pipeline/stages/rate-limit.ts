// Rate limits: drops the items a limit upstream announced holds back (../rate-limit.ts keeps the limits).
import type { Flight } from '../flight.ts';
import type { RateLimits } from '../rate-limit.ts';
import { proceed, refusal, type Stage } from '../stage.ts';

/** Drops the items a limit upstream announced holds back; refuses (429) when that is every item. */
export function rateLimitStage(rateLimits: RateLimits): Stage<Flight> {
  return (flight) => {
    const { dsn } = flight.authorized;
    const limited = rateLimits.apply(dsn.key, flight.items);
    for (const type of limited.droppedTypes) {
      flight.dropped.push({ type, reason: 'rate_limited', ledger: 'upstream_ratelimited' });
    }
    if (limited.items.length === 0 && flight.items.length > 0) {
      return refusal('rate_limited', `project ${dsn.projectId} is rate-limited upstream`, rateLimits.headers(dsn.key));
    }
    flight.rateLimited = limited.droppedTypes.length > 0;
    flight.items = limited.items;
    if (limited.discarded.length > 0) flight.discarded.push(...limited.discarded);
    return proceed(flight);
  };
}
