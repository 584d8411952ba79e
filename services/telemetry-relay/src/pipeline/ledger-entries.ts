// The loss ledger's entries for an envelope answered 200 (ops/ledger.ts): its items accepted (a tally text,
// ops/tally.ts), each item a stage dropped under its reason, and what delivery took as pending. Written at the
// answer, so a refusal after the stages (spool full, draining) leaves no entry.
import type { Ledger } from '../ops/ledger.ts';
import type { Flight } from './flight.ts';

export function accountAccepted(ledger: Ledger) {
  return (flight: Flight): void => {
    const { project } = flight.authorized;
    ledger.accepted(project, flight.received);
    for (const { type, ledger: reason } of flight.dropped) ledger.droppedItem(project, reason, type);
    if (flight.delivered !== undefined) ledger.pending(project, flight.delivered);
  };
}
