import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * Worker thread: checkpoints the spool's WAL into the database file every `intervalMs`, so the event loop of the
 * relay never pays for it (SQLite's automatic checkpoint runs inside whichever COMMIT crosses the threshold, which
 * stalls the request that happens to commit it). PASSIVE never blocks the writer; the WAL is reused from its start
 * once a checkpoint has caught up.
 */
const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const db = new DatabaseSync(file);
db.exec('PRAGMA busy_timeout = 1000');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const timer = setInterval(() => {
  try {
    checkpoint.get();
  } catch {
    // busy: the next round catches up
  }
}, intervalMs);
parentPort?.on('message', (message) => {
  if (message === 'stop') {
    clearInterval(timer);
    db.close();
    parentPort?.close();
  }
});
