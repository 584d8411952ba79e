// The loss ledger's entries for an envelope answered 200 (ops/ledger.ts): its items accepted (a tally text,
// ops/tally.ts), each item a stage dropped under its reason, and what delivery took as pending. Written at the
// answer, so a refusal after the stages (spool full, draining) leaves no entry.
import { type DropReason, filterReason, type Ledger } from '../ops/ledger.ts';

export function accountAccepted(ledger: Ledger) {
  const drop = (project: string, reason: DropReason, type: string) => ledger.droppedItem(project, reason, type);
  return (
    project: string,
    received: string,
    rateLimited: readonly string[],
    filtered: ReadonlyArray<{ type: string; rule: string }>,
    inbound: ReadonlyArray<{ type: string; reason: string }>,
    policy: ReadonlyArray<{ type: string; reason: 'quota' | 'spike_shield' }>,
    delivered: string | undefined,
  ): void => {
    ledger.accepted(project, received);
    for (const type of rateLimited) drop(project, 'upstream_ratelimited', type);
    for (const { type, rule } of filtered) drop(project, filterReason(rule), type);
    for (const { type, reason } of inbound) drop(project, filterReason(reason), type);
    for (const { type, reason } of policy) drop(project, reason, type);
    if (delivered !== undefined) ledger.pending(project, delivered);
  };
}
