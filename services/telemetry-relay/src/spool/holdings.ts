// What the spool holds, kept in memory exact: rows and bytes in all and per client, the rows being sent (leased, or
// inserted leased), and expired rows whose send has still to settle them in the loss ledger.
import type { RemovedRow, SpoolEntry } from './database.ts';
import { ClientTally } from './shares.ts';
import type { Statements } from './statements.ts';

/**
 * The loss ledger's view of the spool (ops/ledger.ts implements it): what the spool held as it opened, and the rows
 * it removed itself, never to be sent. Rows without `items` (the relay's own client reports) are not in it.
 */
export interface SpoolLedger {
  opened(rows: ReadonlyArray<{ project: string; items: string; rows: number }>): void;
  dropped(project: string, items: string, reason: SpoolDropReason): void;
}
export type SpoolDropReason = 'expired' | 'not_allowed' | 'lost';

export class Holdings {
  count: number;
  bytes: number;
  readonly byClient = new ClientTally();
  /** Rows being sent: leased by `lease` (still due in the table), or inserted leased. Opening released every lease. */
  readonly leased = new Set<number>();
  readonly inserted = new Set<number>();
  /**
   * Expired rows that were being sent: the send's answer settles them in the ledger (forwarded, refused), or, failing,
   * its reschedule finds them here and counts them expired.
   */
  readonly expiredInFlight = new Map<number, { project: string; items: string }>();
  readonly #ledger: SpoolLedger | undefined;

  /** Counted from the table as it is now. */
  constructor(sql: Statements, ledger: SpoolLedger | undefined) {
    const totals = sql.totals.get() as { n: number; b: number };
    this.count = Number(totals.n);
    this.bytes = Number(totals.b);
    const perClient = sql.perClient.all() as Array<{ client: string; n: number; b: number }>;
    for (const row of perClient) this.byClient.set(row.client, { count: Number(row.n), bytes: Number(row.b) });
    this.#ledger = ledger;
  }

  get sending(): number {
    return this.leased.size + this.inserted.size;
  }

  /** A row inserted as `id`; a leased one is being sent. */
  added(entry: SpoolEntry, id: number, leased: boolean): void {
    this.count++;
    this.bytes += entry.body.length;
    this.byClient.add(entry.client, entry.body.length);
    if (leased) this.inserted.add(id);
  }

  /**
   * Rows a DELETE … RETURNING removed; their body files are added to `unlink`. With `reason`, the spool gives them
   * up: the ledger counts them dropped (a row being sent once its send settles). Returns how many.
   */
  removed(rows: readonly RemovedRow[], unlink: string[], reason?: SpoolDropReason): number {
    for (const row of rows) {
      const id = Number(row.id);
      this.count--;
      this.bytes -= Number(row.size);
      this.byClient.remove(row.client, Number(row.size));
      const sending = this.stopSending(id);
      if (row.file !== null) unlink.push(row.file);
      if (row.items === null || reason === undefined) continue;
      if (sending) this.expiredInFlight.set(id, { project: row.project, items: row.items });
      else this.#ledger?.dropped(row.project, row.items, reason);
    }
    return rows.length;
  }

  /** A row no longer being sent; false when it was deleted meanwhile. */
  stopSending(id: number): boolean {
    return this.leased.delete(id) || this.inserted.delete(id);
  }

  /** A send given back after its row expired: the ledger counts it dropped now. */
  settleExpired(id: number): void {
    const expired = this.expiredInFlight.get(id);
    if (!expired) return;
    this.expiredInFlight.delete(id);
    this.#ledger?.dropped(expired.project, expired.items, 'expired');
  }
}
