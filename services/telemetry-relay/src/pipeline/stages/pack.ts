// What is sent: the items left and a client report of the drops, serialized again when something changed.
import type { Target } from '../../core/types.ts';
import { serializeEnvelope } from '../../envelope/serialize.ts';
import { tallyText } from '../../ops/tally.ts';
import { clientReportItem, type OutcomeAggregator } from '../client-report.ts';
import type { Flight } from '../flight.ts';
import { proceed, type Stage } from '../stage.ts';

/** The bytes to send; drops the envelope when nothing is left (its outcomes go with the next client reports). */
export function packStage(outcomes: OutcomeAggregator<Target>): Stage<Flight> {
  return (flight) => {
    const { envelope, discarded } = flight;
    let items = flight.items;
    if (items.length === 0) {
      if (discarded.length > 0) outcomes.add(flight.authorized.dsn.key, flight.target, discarded);
      return { kind: 'drop', reason: 'nothing_left' };
    }
    // The ledger's tally of what delivery takes: the items, not the client report the relay adds.
    flight.delivered = items === envelope.items ? flight.received : tallyText(items);
    if (discarded.length > 0) items = [...items, clientReportItem(discarded)];
    if (flight.rewritten || discarded.length > 0) flight.body = serializeEnvelope(envelope, items);
    return proceed(flight);
  };
}
