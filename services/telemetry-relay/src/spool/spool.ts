// The durable spool: one SQLite row per envelope accepted but not delivered, bodies over BODY_FILE_THRESHOLD in files
// (decision 001). Replay leases rows oldest first by the memory they take, never one twice; leases live in memory, as
// marking a row rewrote it, body and all (decision 029), and a restart makes every row due again anyway.
import type { FileHandle } from 'node:fs/promises';
import type { DatabaseSync } from 'node:sqlite';
import type { BodyFiles } from './body-files.ts';
import { startCheckpointer } from './checkpointer.ts';
import { inTransaction, LEASED, type RemovedRow, type SpoolEntry, type SpoolRecord } from './database.ts';
import { Holdings, type SpoolLedger } from './holdings.ts';
import { type Lease, type LeaseRequest, leaseRows } from './lease.ts';
import { openStore } from './open-store.ts';
import type { Tally } from './shares.ts';
import { prepareStatements, type Statements } from './statements.ts';

export type { SpoolEntry, SpoolRecord } from './database.ts';
export type { SpoolDropReason, SpoolLedger } from './holdings.ts';

export interface SpoolInsert {
  entry: SpoolEntry;
  leased: boolean;
  nextAttemptAt: number;
  /** The body's file, from `writeBody`; the row then holds no blob. */
  bodyFile?: string | undefined;
}

export type { Lease, LeaseRequest } from './lease.ts';

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
  /** A leased file row's body file, opened to be read; SpoolBodyLostError when the file is gone or not ours. */
  openBody(record: SpoolRecord): Promise<FileHandle>;
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
  const { file, db, files, lock, lostRows, orphanFiles } = openStore(options);
  const sql = prepareStatements(db);
  const held = new Holdings(sql, options.ledger);
  const checkpointer = startCheckpointer(file, CHECKPOINT_EVERY_MS);
  /** Runs `work` in a transaction; the body files it names in `unlink` are unlinked once it commits. */
  const removeCommitted = <T>(work: (unlink: string[]) => T): T => {
    const unlink: string[] = [];
    const result = inTransaction(db, () => work(unlink));
    files.remove(unlink);
    return result;
  };
  const removed = (rows: unknown, unlink: string[], reason?: 'expired') =>
    held.removed(rows as RemovedRow[], unlink, reason);
  const nothing: Lease = { rows: [], bytes: 0, expired: 0, notAllowed: 0 };

  const spool: Spool = {
    get count() {
      return held.count;
    },
    get bytes() {
      return held.bytes;
    },
    get unleasedCount() {
      return held.count - held.sending;
    },
    heldBy: (client) => held.byClient.of(client),
    recovered: { lostRows, orphanFiles, expiredRows: 0 },
    writeBody(body) {
      return body.length > BODY_FILE_THRESHOLD ? files.write(body) : undefined;
    },
    insert(entries) {
      if (entries.length === 0) return [];
      const ids = insertAll(db, sql, files, entries);
      for (const [i, { entry, leased }] of entries.entries()) held.added(entry, ids[i] as number, leased);
      return ids;
    },
    remove(ids) {
      if (ids.length === 0) return 0;
      for (const id of ids) held.expiredInFlight.delete(id); // settled by whoever removes it
      return removeCommitted((unlink) => ids.reduce((sum, id) => sum + removed(sql.deleteRow.all(id), unlink), 0));
    },
    lease(request) {
      if (held.count === held.sending || request.maxRows <= 0 || request.maxBytes <= 0) return nothing;
      return removeCommitted((unlink) => leaseRows(request, sql, held, unlink));
    },
    async openBody(record) {
      if (record.bodyFile === undefined) throw new Error(`spool row ${record.id} holds its body: nothing to open`);
      return files.open(record.bodyFile, record.size);
    },
    reschedule(id, attempts, nextAttemptAt) {
      if (held.stopSending(id)) sql.release.run(attempts, nextAttemptAt, id); // not deleted meanwhile
      held.settleExpired(id);
    },
    wakeAll(now) {
      sql.wake.run(now, now);
    },
    expire(before) {
      return removeCommitted((unlink) => removed(sql.expireRows.all(before), unlink, 'expired'));
    },
    oldestAcceptedAt() {
      const row = sql.oldest.get() as { accepted_at: number } | undefined;
      return row === undefined ? undefined : Number(row.accepted_at);
    },
    close() {
      checkpointer.stop();
      closeDatabase(db);
      if (lock.isOpen) lock.close();
    },
  };
  // Rows past their age go before anything could replay them (a restart after a long outage or a crash loop).
  if (options.maxAgeMs !== undefined) spool.recovered.expiredRows = spool.expire(Date.now() - options.maxAgeMs);
  return spool;
}

/** Inserts in one transaction; when it fails, the entries' body files are unlinked. */
function insertAll(db: DatabaseSync, sql: Statements, files: BodyFiles, entries: readonly SpoolInsert[]): number[] {
  try {
    return inTransaction(db, () => entries.map((insert) => insertRow(sql, insert)));
  } catch (error) {
    files.remove(entries.flatMap(({ bodyFile }) => (bodyFile === undefined ? [] : [bodyFile])));
    throw error;
  }
}

/** Inserts one row (in the caller's transaction); returns its id. */
function insertRow(sql: Statements, { entry, leased, nextAttemptAt, bodyFile }: SpoolInsert): number {
  const result = sql.insertRow.run(
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
}

/** Copies the WAL into the database first: a closed spool is one file. */
function closeDatabase(db: DatabaseSync): void {
  if (!db.isOpen) return;
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
}
