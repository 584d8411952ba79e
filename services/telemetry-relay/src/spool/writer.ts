// Group commit: every envelope written in one event-loop turn is inserted in one transaction, every row acknowledged
// in one turn deleted in one (a commit costs about the same for one row as for a hundred); a large body's row joins
// the turn its file is complete in. Deleting late is safe: a crash before the delete means one more delivery.
import type { FastifyBaseLogger } from 'fastify';
import type { Spool, SpoolEntry } from './spool.ts';

export interface SpoolWriter {
  /** Commits `entry` with this turn's other writes; resolves with its row id once it is on disk. */
  write(entry: SpoolEntry, leased: boolean): Promise<number>;
  /** Writes entries now, in a transaction of their own (a failed send, shutdown): large bodies to files first. */
  writeNow(items: ReadonlyArray<{ entry: SpoolEntry; nextAttemptAt: number }>): Promise<void>;
  /** Upstream has the row's envelope: it is deleted with this turn's other acknowledgements. */
  ack(id: number): void;
  /** Commits everything pending now: writes (after their body files) and acknowledgements. */
  flush(): Promise<void>;
}

interface Pending {
  entry: SpoolEntry;
  leased: boolean;
  bodyFile: string | undefined;
  resolve: (id: number) => void;
  reject: (error: Error) => void;
}

export function createSpoolWriter(spool: Spool, log: FastifyBaseLogger): SpoolWriter {
  let batch: Pending[] = [];
  /** Body files being written (their rows join a batch once written) and `writeNow`s: `flush` waits for them. */
  const writing = new Set<Promise<unknown>>();
  let acks: number[] = [];
  /** `written`, counted in `writing` until it settles. */
  const tracked = <T>(written: Promise<T>): Promise<T> => {
    writing.add(written);
    return written.finally(() => writing.delete(written));
  };

  const commit = () => {
    const current = batch;
    batch = [];
    try {
      const ids = spool.insert(current.map((item) => ({ ...item, nextAttemptAt: 0 })));
      for (const [i, item] of current.entries()) item.resolve(ids[i] as number);
    } catch (error) {
      for (const item of current) item.reject(error as Error);
    }
  };
  const join = (entry: SpoolEntry, leased: boolean, bodyFile: string | undefined) =>
    new Promise<number>((resolve, reject) => {
      if (batch.length === 0) setImmediate(commit);
      batch.push({ entry, leased, bodyFile, resolve, reject });
    });

  const commitAcks = () => {
    const current = acks;
    acks = [];
    try {
      spool.remove(current);
    } catch (error) {
      // Only after shutdown closed the spool: these rows are delivered again at the next start.
      log.warn({ err: error, rows: current.length }, 'could not delete delivered envelopes from the spool');
    }
  };

  return {
    write(entry, leased) {
      const file = spool.writeBody(entry.body);
      if (file === undefined) return join(entry, leased, undefined);
      return tracked(file.then((bodyFile) => join(entry, leased, bodyFile)));
    },
    writeNow(items) {
      if (items.length === 0) return Promise.resolve();
      return tracked(
        Promise.all(items.map(({ entry }) => spool.writeBody(entry.body))).then((bodyFiles) => {
          spool.insert(items.map((item, i) => ({ ...item, leased: false, bodyFile: bodyFiles[i] })));
        }),
      );
    },
    ack(id) {
      if (acks.length === 0) setImmediate(commitAcks);
      acks.push(id);
    },
    async flush() {
      await Promise.allSettled(writing);
      if (batch.length > 0) commit();
      if (acks.length > 0) commitAcks();
    },
  };
}
