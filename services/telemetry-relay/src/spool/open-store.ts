// Opening the spool's store: its private directory and lock, the database, the body files, and the rows whose body
// file was lost (deleted at once, counted by the ledger) or files no row names (unlinked).
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { type BodyFiles, openBodyFiles } from './body-files.ts';
import { inTransaction, itemsByProject, openSpoolDatabase } from './database.ts';
import { lockSpoolDir, ownerOnly, prepareSpoolDir } from './directory.ts';
import type { SpoolLedger } from './holdings.ts';

export interface Store {
  file: string;
  db: DatabaseSync;
  files: BodyFiles;
  /** Held while the spool is open: one process per directory. */
  lock: DatabaseSync;
  lostRows: number;
  orphanFiles: number;
}

export function openStore(options: {
  dir: string;
  sync: 'normal' | 'full';
  private?: boolean;
  ledger?: SpoolLedger | undefined;
}): Store {
  prepareSpoolDir(options.dir, options.private === true);
  const lock = lockSpoolDir(options.dir);
  const file = join(options.dir, 'spool.sqlite');
  ownerOnly(file);
  const db = openSpoolDatabase(file, options.sync);
  const files = openBodyFiles(options.dir, options.sync);
  // Before anything is removed: what the previous process left is this one's pending at start.
  options.ledger?.opened(itemsByProject(db));
  const named = db
    .prepare('SELECT id, body_file AS file, body_size AS size FROM envelopes WHERE body_file IS NOT NULL')
    .all() as Array<{ id: number; file: string; size: number }>;
  const { lost, orphans } = files.reconcile(named);
  const deleteLost = db.prepare('DELETE FROM envelopes WHERE id = ? RETURNING project, items');
  inTransaction(db, () => {
    for (const row of lost) {
      const gone = deleteLost.get(row.id) as { project: string; items: string | null } | undefined;
      if (gone?.items != null) options.ledger?.dropped(gone.project, gone.items, 'lost');
    }
  });
  return { file, db, files, lock, lostRows: lost.length, orphanFiles: orphans };
}
