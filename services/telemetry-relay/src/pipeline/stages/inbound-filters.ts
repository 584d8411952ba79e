// Sentry Relay's inbound filters: drops what one of the project's filters matches (../inbound-filters/).
import { filterReason } from '../../ops/ledger.ts';
import type { Flight } from '../flight.ts';
import { proceed, type Stage } from '../stage.ts';

/** Drops the events, transactions and CSP reports one of the project's inbound filters matches. */
export const inboundFilterStage: Stage<Flight> = (flight) => {
  const inbound = flight.authorized.settings.inboundFilter(flight.items, flight.texts);
  for (const { type, reason } of inbound.dropped) flight.dropped.push({ type, reason, ledger: filterReason(reason) });
  if (inbound.discarded.length > 0) flight.discarded.push(...inbound.discarded);
  flight.items = inbound.items;
  return proceed(flight);
};
