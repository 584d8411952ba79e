import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { startCheckpointer } from './checkpointer.ts';

/**
 * The durable spool: envelopes accepted but not yet delivered, in SQLite (Node 24's built-in node:sqlite) in WAL
 * mode. Why SQLite rather than an append-only segment log: a commit is atomic (a crash leaves whole rows or none,
 * no torn records to detect), deleting a delivered envelope or rescheduling one is a single statement (a log would
 * need acknowledgement records and compaction), counts/bytes/oldest come from queries, and the file is inspectable
 * with the sqlite3 tool. Its cost, a synchronous write on the event loop, is kept small by committing every
 * envelope accepted in one tick in a single transaction (group commit; see delivery.ts) and by WAL, where a commit
 * is an append to the -wal file.
 *
 * synchronous=NORMAL (default): a committed envelope survives the process being killed (kill -9, OOM, crash), since
 * it is in the OS's page cache; a power loss may lose the last commits. synchronous=FULL fsyncs every commit.
 *
 * Checkpoints (copying the WAL into the database file) run in a worker thread with its own connection, not in the
 * COMMIT of whichever request crosses SQLite's threshold (see checkpointer.ts); the automatic checkpoint stays on
 * at 10 000 pages (40 MB) as a backstop, should the worker ever fall behind.
 *
 * A row being sent has next_attempt_at = LEASED, so the replay loop never sends it twice; rows leased when the
 * process died are due again at the next start.
 */

export interface SpoolEntry {
  url: string;
  dsnKey: string;
  project: string;
  headers: Record<string, string>;
  body: Buffer;
  acceptedAt: number;
  attempts: number;
}

export interface SpoolRecord extends SpoolEntry {
  id: number;
}

export interface SpoolOptions {
  dir: string;
  sync: 'normal' | 'full';
}

const LEASED = Number.MAX_SAFE_INTEGER;

export interface Spool {
  /** Rows in the spool and their body bytes (kept in memory, exact). */
  readonly count: number;
  readonly bytes: number;
  /** Inserts in one transaction; leased rows are not offered by `leaseDue` until released or rescheduled. */
  insert(entries: ReadonlyArray<{ entry: SpoolEntry; leased: boolean; nextAttemptAt: number }>): number[];
  remove(ids: readonly number[]): void;
  /** Leases and returns up to `limit` due rows, oldest first. */
  leaseDue(now: number, limit: number): SpoolRecord[];
  reschedule(id: number, attempts: number, nextAttemptAt: number): void;
  /** Makes every waiting (not leased) row due now: upstream is back. */
  wakeAll(now: number): void;
  /** Deletes rows accepted before `before`; returns how many. */
  expire(before: number): number;
  oldestAcceptedAt(): number | undefined;
  close(): void;
}

/** Another live process holds the spool directory (two replicas must never share one). */
export class SpoolInUseError extends Error {
  readonly code = 'SPOOL_IN_USE';
}

/**
 * Holds an exclusive SQLite lock on `spool.lock` for the life of the process: the operating system drops it when
 * the process dies, even by kill -9, so a restart takes over at once while a second live relay is refused.
 */
function lockDirectory(dir: string): DatabaseSync {
  const lock = new DatabaseSync(join(dir, 'spool.lock'));
  try {
    lock.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;');
  } catch (error) {
    lock.close();
    throw new SpoolInUseError(
      `SPOOL_DIR ${dir} is in use by another telemetry-relay process (${(error as Error).message}); each replica needs its own spool directory`,
    );
  }
  return lock;
}

export function openSpool(options: SpoolOptions): Spool {
  mkdirSync(options.dir, { recursive: true });
  const lock = lockDirectory(options.dir);
  const file = join(options.dir, 'spool.sqlite');
  const db = new DatabaseSync(file);
  db.exec(`
    PRAGMA busy_timeout = 5000;
    PRAGMA journal_mode = WAL;
    PRAGMA wal_autocheckpoint = 10000;
    PRAGMA synchronous = ${options.sync === 'full' ? 'FULL' : 'NORMAL'};
    CREATE TABLE IF NOT EXISTS envelopes (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      accepted_at INTEGER NOT NULL,
      next_attempt_at INTEGER NOT NULL,
      attempts INTEGER NOT NULL,
      url TEXT NOT NULL,
      dsn_key TEXT NOT NULL,
      project TEXT NOT NULL,
      headers TEXT NOT NULL,
      body BLOB NOT NULL
    );
  `);
  // Nothing is in flight in a process that just started.
  db.prepare('UPDATE envelopes SET next_attempt_at = 0 WHERE next_attempt_at = ?').run(LEASED);
  const totals = db.prepare('SELECT count(*) AS n, coalesce(sum(length(body)), 0) AS b FROM envelopes').get() as {
    n: number;
    b: number;
  };
  let count = Number(totals.n);
  let bytes = Number(totals.b);

  const insertRow = db.prepare(
    'INSERT INTO envelopes (accepted_at, next_attempt_at, attempts, url, dsn_key, project, headers, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const deleteRow = db.prepare('DELETE FROM envelopes WHERE id = ? RETURNING length(body) AS size');
  const selectDue = db.prepare(
    'SELECT id, accepted_at, attempts, url, dsn_key, project, headers, body FROM envelopes WHERE next_attempt_at <= ? ORDER BY id LIMIT ?',
  );
  const setNext = db.prepare('UPDATE envelopes SET attempts = ?, next_attempt_at = ? WHERE id = ?');
  const wake = db.prepare('UPDATE envelopes SET next_attempt_at = ? WHERE next_attempt_at > ? AND next_attempt_at < ?');
  const expireRows = db.prepare('DELETE FROM envelopes WHERE accepted_at < ? RETURNING length(body) AS size');
  const oldest = db.prepare('SELECT accepted_at FROM envelopes ORDER BY id LIMIT 1');
  const checkpointer = startCheckpointer(file, 500);

  const transaction = <T>(work: () => T): T => {
    db.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      db.exec('COMMIT');
      return result;
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  };
  const removeAll = (statement: StatementSync, arg: number): number => {
    const rows = statement.all(arg) as Array<{ size: number }>;
    for (const row of rows) {
      count--;
      bytes -= Number(row.size);
    }
    return rows.length;
  };

  return {
    get count() {
      return count;
    },
    get bytes() {
      return bytes;
    },
    insert(entries) {
      if (entries.length === 0) return [];
      const ids = transaction(() =>
        entries.map(({ entry, leased, nextAttemptAt }) => {
          const result = insertRow.run(
            entry.acceptedAt,
            leased ? LEASED : nextAttemptAt,
            entry.attempts,
            entry.url,
            entry.dsnKey,
            entry.project,
            JSON.stringify(entry.headers),
            entry.body,
          );
          return Number(result.lastInsertRowid);
        }),
      );
      for (const { entry } of entries) {
        count++;
        bytes += entry.body.length;
      }
      return ids;
    },
    remove(ids) {
      if (ids.length === 0) return;
      transaction(() => {
        for (const id of ids) removeAll(deleteRow, id);
      });
    },
    leaseDue(now, limit) {
      if (count === 0 || limit <= 0) return [];
      return transaction(() => {
        const rows = selectDue.all(now, limit) as Array<{
          id: number;
          accepted_at: number;
          attempts: number;
          url: string;
          dsn_key: string;
          project: string;
          headers: string;
          body: Uint8Array;
        }>;
        return rows.map((row) => {
          setNext.run(row.attempts, LEASED, row.id);
          return {
            id: Number(row.id),
            acceptedAt: Number(row.accepted_at),
            attempts: Number(row.attempts),
            url: row.url,
            dsnKey: row.dsn_key,
            project: row.project,
            headers: JSON.parse(row.headers) as Record<string, string>,
            body: Buffer.from(row.body.buffer, row.body.byteOffset, row.body.byteLength),
          };
        });
      });
    },
    reschedule(id, attempts, nextAttemptAt) {
      setNext.run(attempts, nextAttemptAt, id);
    },
    wakeAll(now) {
      wake.run(now, now, LEASED);
    },
    expire(before) {
      return transaction(() => removeAll(expireRows, before));
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
}
