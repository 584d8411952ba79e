// The spool's SQL, each statement prepared once as the spool opens.
import type { DatabaseSync } from 'node:sqlite';
import { BACKING_OFF, MEMORY, SIZE } from './database.ts';

const REMOVED = `RETURNING id, ${SIZE} AS size, body_file AS file, client, project, items`;

export function prepareStatements(db: DatabaseSync) {
  return {
    totals: db.prepare(`SELECT count(*) AS n, coalesce(sum(${SIZE}), 0) AS b FROM envelopes`),
    perClient: db.prepare(
      `SELECT client, count(*) AS n, coalesce(sum(${SIZE}), 0) AS b FROM envelopes WHERE client IS NOT NULL GROUP BY client`,
    ),
    insertRow: db.prepare(
      'INSERT INTO envelopes (accepted_at, next_attempt_at, attempts, url, dsn_key, project, headers, body, body_file, body_size, client, items) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    /** DELETE … RETURNING a RemovedRow. */
    deleteRow: db.prepare(`DELETE FROM envelopes WHERE id = ? ${REMOVED}`),
    selectDue: db.prepare(
      `SELECT id, accepted_at, url, dsn_key, ${MEMORY} AS memory, ${SIZE} AS size FROM envelopes WHERE next_attempt_at <= ? ORDER BY id LIMIT ?`,
    ),
    selectRow: db.prepare(
      `SELECT id, accepted_at, attempts, url, dsn_key, project, headers, body, body_file, client, items, ${SIZE} AS size, ${MEMORY} AS memory FROM envelopes WHERE id = ?`,
    ),
    release: db.prepare('UPDATE envelopes SET attempts = ?, next_attempt_at = ? WHERE id = ?'),
    wake: db.prepare(`UPDATE envelopes SET next_attempt_at = ? WHERE ${BACKING_OFF} AND next_attempt_at > ?`),
    /** DELETE … RETURNING RemovedRows. */
    expireRows: db.prepare(`DELETE FROM envelopes WHERE accepted_at < ? ${REMOVED}`),
    oldest: db.prepare('SELECT accepted_at FROM envelopes ORDER BY id LIMIT 1'),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
