// Which answers a connection step's errors were: the relay's refusals by reason (the change of its
// relay_envelopes_rejected_total over the step, each reason with the status it is answered with) and what wrk saw
// besides (answers with another status the relay did not count, socket errors by kind), summed over the rounds.
import { num } from '@app/test-kit/growth-report';
import { type RejectCode, RelayError } from '../../src/core/errors.ts';
import type { WrkErrors } from './harness.ts';

const SOCKET_ERRORS = ['connect', 'read', 'write', 'timeout'] as const;

/** "client_overloaded 429: 12 345, socket read 40" (largest first), or "none". */
export function describeRefusals(
  runs: readonly WrkErrors[],
  rejected?: { before: ReadonlyMap<string, number>; after: ReadonlyMap<string, number> },
): string {
  const sum = (pick: (run: WrkErrors) => number) => runs.reduce((total, run) => total + pick(run), 0);
  const parts: [string, number][] = [];
  let counted = 0;
  for (const [reason, after] of rejected?.after ?? []) {
    const count = after - (rejected?.before.get(reason) ?? 0);
    if (count <= 0) continue;
    counted += count;
    parts.push([`${reason} ${statusOf(reason)}`, count]);
  }
  // Without the relay's counter (a peer), or answers it did not count as refusals (e.g. a 500).
  const uncounted = sum((run) => run.non2xx) - counted;
  if (uncounted > 0) parts.push([rejected ? 'other non-2xx' : 'non-2xx', uncounted]);
  for (const kind of SOCKET_ERRORS) {
    const count = sum((run) => run[kind]);
    if (count > 0) parts.push([`socket ${kind}`, count]);
  }
  parts.sort((a, b) => b[1] - a[1]);
  return parts.length === 0 ? 'none' : parts.map(([what, count]) => `${what}: ${num(count)}`).join(', ');
}

function statusOf(reason: string): string {
  const status = new RelayError(reason as RejectCode, '').statusCode;
  return status === undefined ? '(status unknown)' : String(status);
}
