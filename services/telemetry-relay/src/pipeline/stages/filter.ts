// Ignore rules: drops error events a rule matches, with their attachments (../filter.ts).
import { filterReason } from '../../ops/ledger.ts';
import type { Flight } from '../flight.ts';
import { proceed, type Stage } from '../stage.ts';

/** Drops the error events the project's ignore rules match. */
export const filterStage: Stage<Flight> = (flight) => {
  const { envelope, items } = flight;
  const filtered = flight.authorized.settings.filter(
    items === envelope.items ? envelope : { ...envelope, items },
    flight.texts,
  );
  for (const { type, rule } of filtered.dropped)
    flight.dropped.push({ type, reason: rule, ledger: filterReason(rule) });
  if (filtered.discarded.length > 0) flight.discarded.push(...filtered.discarded);
  flight.items = filtered.items;
  return proceed(flight);
};
