// A worker thread checkpointing the spool's WAL every `intervalMs` (PASSIVE: never blocks the writer), so no COMMIT
// pays for SQLite's automatic one; plain JavaScript (a .ts entry loads the type stripper). It opens the file only while
// the spool is open (`mode=rw`), and `stop()` returns once closed, so nothing touches it after the spool's close().
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const SOURCE = `
const { DatabaseSync } = require('node:sqlite');
const { parentPort, workerData } = require('node:worker_threads');
const state = new Int32Array(workerData.state);
let db;
// 0 → 1 (open) unless stop() came first (2): then this thread has nothing to do.
if (Atomics.compareExchange(state, 0, 0, 1) === 0) {
  try {
    db = new DatabaseSync(new URL(workerData.url));
    db.exec('PRAGMA busy_timeout = 1000');
  } catch {
    db = undefined; // the file is gone: nothing to checkpoint
  }
}
const done = () => {
  try { db?.close(); } catch {}
  Atomics.store(state, 0, 3);
  Atomics.notify(state, 0);
  parentPort.close();
};
if (!db) done();
else {
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  const timer = setInterval(() => {
    try { checkpoint.get(); } catch {} // busy: the next round catches up
  }, workerData.intervalMs);
  parentPort.on('message', () => { clearInterval(timer); done(); });
}
`;

/** How long stop() waits for the thread to close its connection (it takes a few ms; a stuck thread must not hang). */
const STOP_WAIT_MS = 2_000;

export interface Checkpointer {
  /** Returns once the thread's connection is closed, or it never opened one. */
  stop(): void;
}

export function startCheckpointer(file: string, intervalMs: number): Checkpointer {
  const url = pathToFileURL(file);
  url.searchParams.set('mode', 'rw');
  // 0 not started, 1 open, 2 stopped before it opened, 3 closed.
  const state = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(SOURCE, { eval: true, workerData: { url: url.href, intervalMs, state: state.buffer } });
  worker.unref();
  // Should the thread fail anyway, SQLite's own automatic checkpoint (kept on as a backstop) bounds the WAL: losing
  // the worker costs latency, never data, so its error must not take the relay down (an unhandled 'error' would).
  worker.on('error', () => {
    Atomics.store(state, 0, 3);
  });
  return {
    stop() {
      if (Atomics.compareExchange(state, 0, 0, 2) === 0) return; // it never opened the file, and now never will
      worker.postMessage('stop');
      // A blocking wait on shutdown only: close() stays synchronous for its callers.
      Atomics.wait(state, 0, 1, STOP_WAIT_MS);
    },
  };
}
