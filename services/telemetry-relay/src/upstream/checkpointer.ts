import { Worker } from 'node:worker_threads';

/**
 * A worker thread checkpointing the spool's WAL every `intervalMs`, so no request's COMMIT pays for SQLite's automatic
 * checkpoint; PASSIVE never blocks the writer. Plain JavaScript source: a .ts entry would load the type stripper too.
 */
const SOURCE = `
const { DatabaseSync } = require('node:sqlite');
const { parentPort, workerData } = require('node:worker_threads');
let db;
try {
  db = new DatabaseSync(workerData.file);
  db.exec('PRAGMA busy_timeout = 1000');
} catch {
  parentPort.close(); // the spool was closed (or removed) before this thread started: nothing to do
}
if (db) {
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  const timer = setInterval(() => {
    try { checkpoint.get(); } catch {} // busy: the next round catches up
  }, workerData.intervalMs);
  parentPort.on('message', () => { clearInterval(timer); db.close(); parentPort.close(); });
}
`;

export interface Checkpointer {
  stop(): void;
}

export function startCheckpointer(file: string, intervalMs: number): Checkpointer {
  const worker = new Worker(SOURCE, { eval: true, workerData: { file, intervalMs } });
  worker.unref();
  // Should the thread fail anyway, SQLite's own automatic checkpoint (kept on as a backstop) bounds the WAL: losing
  // the worker costs latency, never data, so its error must not take the relay down (an unhandled 'error' would).
  worker.on('error', () => {});
  return { stop: () => worker.postMessage('stop') };
}
