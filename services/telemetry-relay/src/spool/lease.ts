// One lease: due rows oldest first, by the memory they take and the bytes they put on the wire, never one twice;
// rows past their age or destination found on the way are deleted instead.
import { type RemovedRow, type Row, type SpoolRecord, toRecord } from './database.ts';
import type { Holdings } from './holdings.ts';
import type { Statements } from './statements.ts';

export interface LeaseRequest {
  now: number;
  maxRows: number;
  /** Most `memoryBytes` the leased rows may add up to; the first row that would not fit ends the lease. */
  maxBytes: number;
  /** Most body bytes (`size`) the rows after the first may add up to: what one lease puts on the wire at once. */
  maxSize?: number;
  /** Rows accepted before this are deleted instead (`expired`). */
  expireBefore?: number;
  /** Rows whose destination this refuses are deleted instead (`notAllowed`). */
  isAllowed?: (target: { url: string; dsnKey: string }) => boolean;
}

export interface Lease {
  rows: SpoolRecord[];
  /** Their `memoryBytes`, summed. */
  bytes: number;
  expired: number;
  notAllowed: number;
}

export function leaseRows(request: LeaseRequest, sql: Statements, held: Holdings, unlink: string[]): Lease {
  const { now, maxRows, maxBytes, maxSize = Number.POSITIVE_INFINITY, expireBefore, isAllowed } = request;
  // Rows leased here are still due in the table: read past as many as there are.
  const due = sql.selectDue.all(now, maxRows + held.leased.size) as unknown as Row[];
  const lease: Lease = { rows: [], bytes: 0, expired: 0, notAllowed: 0 };
  const remove = (id: number) => sql.deleteRow.all(id) as unknown as RemovedRow[];
  let size = 0;
  for (const candidate of due) {
    const id = Number(candidate.id);
    if (held.leased.has(id)) continue;
    if (lease.rows.length === maxRows) break;
    if (expireBefore !== undefined && Number(candidate.accepted_at) < expireBefore) {
      lease.expired += held.removed(remove(id), unlink, 'expired');
    } else if (isAllowed && !isAllowed({ url: candidate.url, dsnKey: candidate.dsn_key })) {
      lease.notAllowed += held.removed(remove(id), unlink, 'not_allowed');
    } else {
      const memory = Number(candidate.memory);
      if (lease.bytes + memory > maxBytes) break; // oldest first: what follows waits its turn
      if (lease.rows.length > 0 && size + Number(candidate.size) > maxSize) break;
      size += Number(candidate.size);
      lease.rows.push(toRecord(sql.selectRow.get(id) as unknown as Row));
      held.leased.add(id);
      lease.bytes += memory;
    }
  }
  return lease;
}
