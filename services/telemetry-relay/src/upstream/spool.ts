import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { openBodyFiles } from './body-files.ts';
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
 * Why large bodies go to files: the insert's cost grows with the body (measured on the 2-core CI machine: 0.05-0.07
 * ms at 4 KiB, 0.16-0.18 ms at 64 KiB, 1.7-2.2 ms at 1 MiB, 19-25 ms at 10 MiB; reading 10 MiB back 6-8 ms), and all
 * of it blocks the event loop. A body over BODY_FILE_THRESHOLD is written to its own file through the thread pool
 * first (`writeBody`, see body-files.ts) and the row only names it; replay loads it the same way (`readBody`). The
 * loop then pays only the calls and callbacks (about 0.03-0.1 ms whatever the size). At 64 KiB the blob insert
 * already takes as long as the whole asynchronous write of a file (0.13-0.35 ms wall); below it a file would save
 * the loop under 0.15 ms for four thread-pool round trips (open, write, close, unlink), so typical envelopes (5-20
 * KB) stay one row with no file. A row whose file is missing at open is deleted and reported (`recovered`).
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

export interface SpoolRecord extends Omit<SpoolEntry, 'body'> {
  id: number;
  /** Body bytes, wherever they are. */
  size: number;
  /** The body, or undefined when it is in its own file: `readBody` loads it. */
  body: Buffer | undefined;
  bodyFile: string | undefined;
}

export interface SpoolInsert {
  entry: SpoolEntry;
  leased: boolean;
  nextAttemptAt: number;
  /** The body's file, from `writeBody`; the row then holds no blob. */
  bodyFile?: string | undefined;
}

export interface SpoolOptions {
  dir: string;
  sync: 'normal' | 'full';
}

const LEASED = Number.MAX_SAFE_INTEGER;
/** Bodies larger than this are stored in their own files (see above for the measurement). */
export const BODY_FILE_THRESHOLD = 64 * 1024;
/** A row's body bytes: file rows record them, blob rows (bodies up to the threshold) have them in the blob. */
const SIZE = 'coalesce(body_size, length(body))';

export interface Spool {
  /** Rows in the spool and their body bytes (kept in memory, exact). */
  readonly count: number;
  readonly bytes: number;
  /** What opening found after a crash: rows whose body file was gone (deleted), files no row named (removed). */
  readonly recovered: { lostRows: number; orphanFiles: number };
  /**
   * Writes a body over BODY_FILE_THRESHOLD to its own file, off the event loop, and resolves with the name to pass
   * to `insert`; returns undefined at once for a smaller body, which the row holds itself.
   */
  writeBody(body: Buffer): Promise<string> | undefined;
  /** Inserts in one transaction; leased rows are not offered by `leaseDue` until released or rescheduled. */
  insert(entries: readonly SpoolInsert[]): number[];
  /** Deletes rows (then their body files); returns how many existed. */
  remove(ids: readonly number[]): number;
  /** Leases and returns up to `limit` due rows, oldest first (a row with a body file without its body). */
  leaseDue(now: number, limit: number): SpoolRecord[];
  /** A leased row's body, loaded off the event loop when it is in a file; SpoolBodyLostError when the file is gone. */
  readBody(record: SpoolRecord): Promise<Buffer>;
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

const EMPTY = Buffer.alloc(0);

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
      body BLOB NOT NULL,
      body_file TEXT,
      body_size INTEGER
    );
  `);
  // Spools written before bodies could live in files.
  const columns = (db.prepare('PRAGMA table_info(envelopes)').all() as Array<{ name: string }>).map((c) => c.name);
  if (!columns.includes('body_file')) {
    db.exec('ALTER TABLE envelopes ADD COLUMN body_file TEXT; ALTER TABLE envelopes ADD COLUMN body_size INTEGER;');
  }
  // Nothing is in flight in a process that just started.
  db.prepare('UPDATE envelopes SET next_attempt_at = 0 WHERE next_attempt_at = ?').run(LEASED);
  const files = openBodyFiles(options.dir, options.sync);
  const named = db
    .prepare('SELECT id, body_file AS file, body_size AS size FROM envelopes WHERE body_file IS NOT NULL')
    .all() as Array<{ id: number; file: string; size: number }>;
  const { lost, orphans } = files.reconcile(named);
  const deleteLost = db.prepare('DELETE FROM envelopes WHERE id = ?');
  for (const row of lost) deleteLost.run(row.id);
  const recovered = { lostRows: lost.length, orphanFiles: orphans };
  const totals = db.prepare(`SELECT count(*) AS n, coalesce(sum(${SIZE}), 0) AS b FROM envelopes`).get() as {
    n: number;
    b: number;
  };
  let count = Number(totals.n);
  let bytes = Number(totals.b);

  const insertRow = db.prepare(
    'INSERT INTO envelopes (accepted_at, next_attempt_at, attempts, url, dsn_key, project, headers, body, body_file, body_size) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const deleteRow = db.prepare(`DELETE FROM envelopes WHERE id = ? RETURNING ${SIZE} AS size, body_file AS file`);
  const selectDue = db.prepare(
    `SELECT id, accepted_at, attempts, url, dsn_key, project, headers, body, body_file, ${SIZE} AS size FROM envelopes WHERE next_attempt_at <= ? ORDER BY id LIMIT ?`,
  );
  const setNext = db.prepare('UPDATE envelopes SET attempts = ?, next_attempt_at = ? WHERE id = ?');
  const wake = db.prepare('UPDATE envelopes SET next_attempt_at = ? WHERE next_attempt_at > ? AND next_attempt_at < ?');
  const expireRows = db.prepare(
    `DELETE FROM envelopes WHERE accepted_at < ? RETURNING ${SIZE} AS size, body_file AS file`,
  );
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
  /** Runs a DELETE … RETURNING size, file; the caller unlinks `unlink` after the transaction commits. */
  const removeAll = (statement: StatementSync, arg: number, unlink: string[]): number => {
    const rows = statement.all(arg) as Array<{ size: number; file: string | null }>;
    for (const row of rows) {
      count--;
      bytes -= Number(row.size);
      if (row.file !== null) unlink.push(row.file);
    }
    return rows.length;
  };
  const removeCommitted = (work: (unlink: string[]) => number): number => {
    const unlink: string[] = [];
    const removed = transaction(() => work(unlink));
    files.remove(unlink);
    return removed;
  };

  return {
    get count() {
      return count;
    },
    get bytes() {
      return bytes;
    },
    recovered,
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
            );
            return Number(result.lastInsertRowid);
          }),
        );
      } catch (error) {
        files.remove(entries.flatMap(({ bodyFile }) => (bodyFile === undefined ? [] : [bodyFile])));
        throw error;
      }
      for (const { entry } of entries) {
        count++;
        bytes += entry.body.length;
      }
      return ids;
    },
    remove(ids) {
      if (ids.length === 0) return 0;
      return removeCommitted((unlink) => ids.reduce((sum, id) => sum + removeAll(deleteRow, id, unlink), 0));
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
          body_file: string | null;
          size: number;
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
            size: Number(row.size),
            body:
              row.body_file === null
                ? Buffer.from(row.body.buffer, row.body.byteOffset, row.body.byteLength)
                : undefined,
            bodyFile: row.body_file ?? undefined,
          };
        });
      });
    },
    async readBody(record) {
      if (record.body !== undefined) return record.body;
      return files.read(record.bodyFile as string, record.size);
    },
    reschedule(id, attempts, nextAttemptAt) {
      setNext.run(attempts, nextAttemptAt, id);
    },
    wakeAll(now) {
      wake.run(now, now, LEASED);
    },
    expire(before) {
      return removeCommitted((unlink) => removeAll(expireRows, before, unlink));
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
