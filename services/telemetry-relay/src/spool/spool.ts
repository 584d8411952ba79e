// The durable spool: one SQLite row per envelope accepted but not delivered, bodies over BODY_FILE_THRESHOLD in files
// (decision 001). Replay leases rows oldest first by the memory they take, never one twice; leases live in memory, as
// marking a row rewrote it, body and all (decision 029), and a restart makes every row due again anyway.
import { join } from 'node:path';
import type { StatementSync } from 'node:sqlite';
import { openBodyFiles } from './body-files.ts';
import { startCheckpointer } from './checkpointer.ts';
import {
  BACKING_OFF,
  inTransaction,
  itemsByProject,
  LEASED,
  MEMORY,
  openSpoolDatabase,
  type RemovedRow,
  type Row,
  SIZE,
  type SpoolEntry,
  type SpoolRecord,
  toRecord,
} from './database.ts';
import { lockSpoolDir, ownerOnly, prepareSpoolDir } from './directory.ts';
import { ClientTally, type Tally } from './shares.ts';
import type { FileBody } from './streamed-body.ts';

export type { SpoolEntry, SpoolRecord } from './database.ts';

export interface SpoolInsert {
  entry: SpoolEntry;
  leased: boolean;
  nextAttemptAt: number;
  /** The body's file, from `writeBody`; the row then holds no blob. */
  bodyFile?: string | undefined;
}

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

/**
 * The loss ledger's view of the spool (ops/ledger.ts implements it): what the spool held as it opened, and the rows
 * it removed itself, never to be sent. Rows without `items` (the relay's own client reports) are not in it.
 */
export interface SpoolLedger {
  opened(rows: ReadonlyArray<{ project: string; items: string; rows: number }>): void;
  dropped(project: string, items: string, reason: SpoolDropReason): void;
}
export type SpoolDropReason = 'expired' | 'not_allowed' | 'lost';

export interface SpoolOptions {
  dir: string;
  sync: 'normal' | 'full';
  /** The directory must be this user's alone (a default in the shared temp dir): see directory.ts. */
  private?: boolean;
  /** Rows older than this are deleted as the spool opens, before anything could replay them. */
  maxAgeMs?: number;
  ledger?: SpoolLedger;
}

/**
 * How often the checkpointer thread copies the WAL into the database: smaller, more frequent checkpoints cut the
 * durable relay's quiet p99 and sped a backlog's drain (decision 040).
 */
const CHECKPOINT_EVERY_MS = 150;

/** Bodies larger than this are stored in their own files (see above for the measurement). */
export const BODY_FILE_THRESHOLD = 64 * 1024;

export interface Spool {
  /** Rows in the spool and their body bytes (kept in memory, exact). */
  readonly count: number;
  readonly bytes: number;
  /** Rows not leased (due now or backing off): replay has nothing to look for while this is 0. */
  readonly unleasedCount: number;
  /** What `client` (a network key) keeps in the spool now. */
  heldBy(client: string | undefined): Readonly<Tally>;
  /** What opening found: rows whose body file was gone or not ours, files no row named, rows past maxAgeMs. */
  readonly recovered: { lostRows: number; orphanFiles: number; expiredRows: number };
  /**
   * Writes a body over BODY_FILE_THRESHOLD to its own file, off the event loop, and resolves with the name to pass
   * to `insert`; returns undefined at once for a smaller body, which the row holds itself.
   */
  writeBody(body: Buffer): Promise<string> | undefined;
  /** Inserts in one transaction; leased rows are not offered by `lease` until rescheduled. */
  insert(entries: readonly SpoolInsert[]): number[];
  /** Deletes rows (then their body files); returns how many existed. */
  remove(ids: readonly number[]): number;
  /** Leases due rows, oldest first, within `maxRows` and `maxBytes`, after deleting expired and refused ones. */
  lease(request: LeaseRequest): Lease;
  /** A leased file row's body, opened to be streamed; SpoolBodyLostError when the file is gone or not ours. */
  openBody(record: SpoolRecord, heldMs: number): Promise<FileBody>;
  /** Gives a leased row back, due at `nextAttemptAt`. */
  reschedule(id: number, attempts: number, nextAttemptAt: number): void;
  /** Makes every waiting (not leased) row due now: upstream is back. */
  wakeAll(now: number): void;
  /** Deletes rows accepted before `before`; returns how many. */
  expire(before: number): number;
  oldestAcceptedAt(): number | undefined;
  close(): void;
}

const EMPTY = Buffer.alloc(0);

export function openSpool(options: SpoolOptions): Spool {
  prepareSpoolDir(options.dir, options.private === true);
  const lock = lockSpoolDir(options.dir);
  const file = join(options.dir, 'spool.sqlite');
  ownerOnly(file);
  const db = openSpoolDatabase(file, options.sync);
  const transaction = <T>(work: () => T): T => inTransaction(db, work);
  const files = openBodyFiles(options.dir, options.sync);
  const ledger = options.ledger;
  // Before anything is removed: what the previous process left is this one's pending at start.
  ledger?.opened(itemsByProject(db));
  const named = db
    .prepare('SELECT id, body_file AS file, body_size AS size FROM envelopes WHERE body_file IS NOT NULL')
    .all() as Array<{ id: number; file: string; size: number }>;
  const { lost, orphans } = files.reconcile(named);
  const deleteLost = db.prepare('DELETE FROM envelopes WHERE id = ? RETURNING project, items');
  transaction(() => {
    for (const row of lost) {
      const gone = deleteLost.get(row.id) as { project: string; items: string | null } | undefined;
      if (gone?.items != null) ledger?.dropped(gone.project, gone.items, 'lost');
    }
  });
  const totals = db.prepare(`SELECT count(*) AS n, coalesce(sum(${SIZE}), 0) AS b FROM envelopes`).get() as {
    n: number;
    b: number;
  };
  let count = Number(totals.n);
  let bytes = Number(totals.b);
  /** Rows being sent: leased by `lease` (still due in the table), or inserted leased. Opening released every lease. */
  const leased = new Set<number>();
  const inserted = new Set<number>();
  const byClient = new ClientTally();
  const perClient = db
    .prepare(
      `SELECT client, count(*) AS n, coalesce(sum(${SIZE}), 0) AS b FROM envelopes WHERE client IS NOT NULL GROUP BY client`,
    )
    .all() as Array<{ client: string; n: number; b: number }>;
  for (const row of perClient) byClient.set(row.client, { count: Number(row.n), bytes: Number(row.b) });

  const insertRow = db.prepare(
    'INSERT INTO envelopes (accepted_at, next_attempt_at, attempts, url, dsn_key, project, headers, body, body_file, body_size, client, items) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const removed = `RETURNING id, ${SIZE} AS size, body_file AS file, client, project, items`;
  const deleteRow = db.prepare(`DELETE FROM envelopes WHERE id = ? ${removed}`);
  const selectDue = db.prepare(
    `SELECT id, accepted_at, url, dsn_key, ${MEMORY} AS memory, ${SIZE} AS size FROM envelopes WHERE next_attempt_at <= ? ORDER BY id LIMIT ?`,
  );
  const selectRow = db.prepare(
    `SELECT id, accepted_at, attempts, url, dsn_key, project, headers, body, body_file, client, items, ${SIZE} AS size, ${MEMORY} AS memory FROM envelopes WHERE id = ?`,
  );
  const release = db.prepare('UPDATE envelopes SET attempts = ?, next_attempt_at = ? WHERE id = ?');
  const wake = db.prepare(`UPDATE envelopes SET next_attempt_at = ? WHERE ${BACKING_OFF} AND next_attempt_at > ?`);
  const expireRows = db.prepare(`DELETE FROM envelopes WHERE accepted_at < ? ${removed}`);
  const oldest = db.prepare('SELECT accepted_at FROM envelopes ORDER BY id LIMIT 1');
  const checkpointer = startCheckpointer(file, CHECKPOINT_EVERY_MS);

  /**
   * Expired rows that were being sent: the send's answer settles them in the ledger (forwarded, refused), or, failing,
   * its reschedule finds them here and counts them expired.
   */
  const expiredInFlight = new Map<number, { project: string; items: string }>();
  /**
   * Runs a DELETE … RETURNING (`removed`); the caller unlinks `unlink` after the transaction commits. With `reason`,
   * the spool gives the rows up: the ledger counts them dropped.
   */
  const removeAll = (statement: StatementSync, arg: number, unlink: string[], reason?: SpoolDropReason): number => {
    const rows = statement.all(arg) as unknown as RemovedRow[];
    for (const row of rows) {
      const id = Number(row.id);
      count--;
      bytes -= Number(row.size);
      byClient.remove(row.client, Number(row.size));
      const sending = leased.delete(id) || inserted.delete(id);
      if (row.file !== null) unlink.push(row.file);
      if (row.items === null || reason === undefined) continue;
      if (sending) expiredInFlight.set(id, { project: row.project, items: row.items });
      else ledger?.dropped(row.project, row.items, reason);
    }
    return rows.length;
  };
  const removeCommitted = <T>(work: (unlink: string[]) => T): T => {
    const unlink: string[] = [];
    const result = transaction(() => work(unlink));
    files.remove(unlink);
    return result;
  };
  const nothing: Lease = { rows: [], bytes: 0, expired: 0, notAllowed: 0 };

  const spool: Spool = {
    get count() {
      return count;
    },
    get bytes() {
      return bytes;
    },
    get unleasedCount() {
      return count - leased.size - inserted.size;
    },
    heldBy: (client) => byClient.of(client),
    recovered: { lostRows: lost.length, orphanFiles: orphans, expiredRows: 0 },
    writeBody(body) {
      return body.length > BODY_FILE_THRESHOLD ? files.write(body) : undefined;
    },
    insert(entries) {
      if (entries.length === 0) return [];
      let ids: number[];
      try {
        ids = transaction(() =>
          entries.map(({ entry, leased, nextAttemptAt, bodyFile }) => {
            const result = insertRow.run(
              entry.acceptedAt,
              leased ? LEASED : nextAttemptAt,
              entry.attempts,
              entry.url,
              entry.dsnKey,
              entry.project,
              JSON.stringify(entry.headers),
              bodyFile === undefined ? entry.body : EMPTY,
              bodyFile ?? null,
              bodyFile === undefined ? null : entry.body.length,
              entry.client ?? null,
              entry.items ?? null,
            );
            return Number(result.lastInsertRowid);
          }),
        );
      } catch (error) {
        files.remove(entries.flatMap(({ bodyFile }) => (bodyFile === undefined ? [] : [bodyFile])));
        throw error;
      }
      for (const [i, { entry, leased: sending }] of entries.entries()) {
        count++;
        bytes += entry.body.length;
        byClient.add(entry.client, entry.body.length);
        if (sending) inserted.add(ids[i] as number);
      }
      return ids;
    },
    remove(ids) {
      if (ids.length === 0) return 0;
      for (const id of ids) expiredInFlight.delete(id); // settled by whoever removes it
      return removeCommitted((unlink) => ids.reduce((sum, id) => sum + removeAll(deleteRow, id, unlink), 0));
    },
    lease({ now, maxRows, maxBytes, maxSize = Number.POSITIVE_INFINITY, expireBefore, isAllowed }) {
      if (count === leased.size + inserted.size || maxRows <= 0 || maxBytes <= 0) return nothing;
      return removeCommitted((unlink) => {
        // Rows leased here are still due in the table: read past as many as there are.
        const due = selectDue.all(now, maxRows + leased.size) as unknown as Row[];
        const lease: Lease = { rows: [], bytes: 0, expired: 0, notAllowed: 0 };
        let size = 0;
        for (const candidate of due) {
          const id = Number(candidate.id);
          if (leased.has(id)) continue;
          if (lease.rows.length === maxRows) break;
          if (expireBefore !== undefined && Number(candidate.accepted_at) < expireBefore) {
            lease.expired += removeAll(deleteRow, id, unlink, 'expired');
          } else if (isAllowed && !isAllowed({ url: candidate.url, dsnKey: candidate.dsn_key })) {
            lease.notAllowed += removeAll(deleteRow, id, unlink, 'not_allowed');
          } else {
            const memory = Number(candidate.memory);
            if (lease.bytes + memory > maxBytes) break; // oldest first: what follows waits its turn
            if (lease.rows.length > 0 && size + Number(candidate.size) > maxSize) break;
            size += Number(candidate.size);
            lease.rows.push(toRecord(selectRow.get(id) as unknown as Row));
            leased.add(id);
            lease.bytes += memory;
          }
        }
        return lease;
      });
    },
    async openBody(record, heldMs) {
      if (record.bodyFile === undefined) throw new Error(`spool row ${record.id} holds its body: nothing to open`);
      return files.open(record.bodyFile, record.size, heldMs);
    },
    reschedule(id, attempts, nextAttemptAt) {
      if (leased.delete(id) || inserted.delete(id)) release.run(attempts, nextAttemptAt, id); // not deleted meanwhile
      const expired = expiredInFlight.get(id);
      if (expired) {
        expiredInFlight.delete(id);
        ledger?.dropped(expired.project, expired.items, 'expired');
      }
    },
    wakeAll(now) {
      wake.run(now, now);
    },
    expire(before) {
      return removeCommitted((unlink) => removeAll(expireRows, before, unlink, 'expired'));
    },
    oldestAcceptedAt() {
      const row = oldest.get() as { accepted_at: number } | undefined;
      return row === undefined ? undefined : Number(row.accepted_at);
    },
    close() {
      checkpointer.stop();
      if (db.isOpen) {
        db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
        db.close();
      }
      if (lock.isOpen) lock.close();
    },
  };
  // Rows past their age go before anything could replay them (a restart after a long outage or a crash loop).
  if (options.maxAgeMs !== undefined) spool.recovered.expiredRows = spool.expire(Date.now() - options.maxAgeMs);
  return spool;
}
