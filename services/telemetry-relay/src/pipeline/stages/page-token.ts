// The page token, with the header line: a forged sender costs a header line, not an envelope (../quota/).
import type { Arrival } from '../flight.ts';
import type { QuotaStage } from '../quota/stage.ts';
import { guarded, type Stage } from '../stage.ts';

/** Refuses (403) an envelope without a valid page token when its project requires one. */
export function pageTokenStage(quotas: QuotaStage): Stage<Arrival> {
  return guarded((arrival) => {
    const authorized = arrival.authorized;
    if (authorized) quotas.checkPageToken(authorized.settings.quotas, authorized.dsn.publicKey, arrival.pageToken);
    return arrival;
  });
}
