// The spool's SQLite database (node:sqlite, WAL): schema, pragmas, migration of older spools, what a row is.
// synchronous=NORMAL survives a process kill (the page cache has the commit), FULL also a power loss. Checkpoints run
// in checkpointer.ts's thread; the automatic one stays on at 10 000 pages as a backstop.
import { DatabaseSync } from 'node:sqlite';
import { STREAMED_BODY_BYTES } from './file-body-memory.ts';

export interface SpoolEntry {
  url: string;
  dsnKey: string;
  project: string;
  headers: Record<string, string>;
  body: Buffer;
  acceptedAt: number;
  attempts: number;
  /** The sender's network (its spool share); none for what the relay makes itself. */
  client?: string | undefined;
  /** Its items by category for the loss ledger (ops/ledger.ts's encoding); none for what the relay makes itself. */
  items?: string | undefined;
}

export interface SpoolRecord extends Omit<SpoolEntry, 'body'> {
  id: number;
  /** Body bytes, wherever they are. */
  size: number;
  /** The body, or undefined when it is in its own file (`openBody` opens it). */
  body: Buffer | undefined;
  bodyFile: string | undefined;
  /** Memory the row takes while it is sent: its body, or for a body file the window it is streamed through. */
  memoryBytes: number;
}

/** `next_attempt_at` of a row being sent: `lease` never offers it, and a restart makes it due again. */
export const LEASED = Number.MAX_SAFE_INTEGER;
/** Rows waiting out a retry delay: the partial index's condition, repeated literally where a query must use it. */
export const BACKING_OFF = `next_attempt_at > 0 AND next_attempt_at < ${LEASED}`;

export function openSpoolDatabase(file: string, sync: 'normal' | 'full'): DatabaseSync {
  const db = new DatabaseSync(file);
  db.exec(`
    PRAGMA busy_timeout = 5000;
    PRAGMA journal_mode = WAL;
    PRAGMA wal_autocheckpoint = 10000;
    PRAGMA synchronous = ${sync === 'full' ? 'FULL' : 'NORMAL'};
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
      body_size INTEGER,
      client TEXT,
      items TEXT
    );
  `);
  // Spools written before bodies could live in files.
  const columns = (db.prepare('PRAGMA table_info(envelopes)').all() as Array<{ name: string }>).map((c) => c.name);
  if (!columns.includes('body_file')) {
    db.exec('ALTER TABLE envelopes ADD COLUMN body_file TEXT; ALTER TABLE envelopes ADD COLUMN body_size INTEGER;');
  }
  // Spools written before spool shares: their rows count toward the spool's bounds, no client's share.
  if (!columns.includes('client')) db.exec('ALTER TABLE envelopes ADD COLUMN client TEXT;');
  // Spools written before the loss ledger: their rows are not in it (as the relay's own client reports).
  if (!columns.includes('items')) db.exec('ALTER TABLE envelopes ADD COLUMN items TEXT;');
  // Without them, expiry (every 30 s) and waking rows when upstream is back scanned the whole table, blocking the
  // event loop for a large spool. The partial index holds only rows backing off, so the hot path's
  // rows (inserted leased, then deleted) never touch it (docs/decisions/029-replay-pacing.md).
  db.exec(`
    CREATE INDEX IF NOT EXISTS envelopes_accepted_at ON envelopes (accepted_at);
    CREATE INDEX IF NOT EXISTS envelopes_backing_off ON envelopes (next_attempt_at) WHERE ${BACKING_OFF};
  `);
  // Nothing is in flight in a process that just started.
  db.prepare('UPDATE envelopes SET next_attempt_at = 0 WHERE next_attempt_at = ?').run(LEASED);
  return db;
}

/** Runs `work` in one write transaction. */
export function inTransaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}

/** A row's body bytes: file rows record them, blob rows (bodies up to the threshold) have them in the blob. */
export const SIZE = 'coalesce(body_size, length(body))';
/** What a row costs in memory while it is sent (SpoolRecord.memoryBytes). */
export const MEMORY = `CASE WHEN body_file IS NULL THEN length(body) ELSE min(body_size, ${STREAMED_BODY_BYTES}) END`;

/** An envelopes row as SELECT returns it, with `size` and `memory` computed. */
export interface Row {
  id: number;
  accepted_at: number;
  attempts: number;
  url: string;
  dsn_key: string;
  project: string;
  headers: string;
  body: Uint8Array;
  body_file: string | null;
  client: string | null;
  items: string | null;
  size: number;
  memory: number;
}

/** A row as a DELETE … RETURNING gives it back. */
export interface RemovedRow {
  id: number;
  size: number;
  file: string | null;
  client: string | null;
  project: string;
  items: string | null;
}

/** The rows' items for the loss ledger, by project and encoded tally (few distinct ones). */
export function itemsByProject(db: DatabaseSync): Array<{ project: string; items: string; rows: number }> {
  const rows = db
    .prepare('SELECT project, items, count(*) AS n FROM envelopes WHERE items IS NOT NULL GROUP BY project, items')
    .all() as Array<{ project: string; items: string; n: number }>;
  return rows.map((row) => ({ project: row.project, items: row.items, rows: Number(row.n) }));
}

export function toRecord(row: Row): SpoolRecord {
  return {
    id: Number(row.id),
    acceptedAt: Number(row.accepted_at),
    attempts: Number(row.attempts),
    url: row.url,
    dsnKey: row.dsn_key,
    project: row.project,
    headers: JSON.parse(row.headers) as Record<string, string>,
    size: Number(row.size),
    body: row.body_file === null ? Buffer.from(row.body.buffer, row.body.byteOffset, row.body.byteLength) : undefined,
    bodyFile: row.body_file ?? undefined,
    memoryBytes: Number(row.memory),
    client: row.client ?? undefined,
    items: row.items ?? undefined,
  };
}
