import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Large spooled bodies, one file each in `<spool dir>/bodies/`, written and read through libuv's thread pool so a
 * 10 MiB envelope costs the event loop a few callbacks instead of a 20 ms synchronous SQLite insert (see spool.ts).
 *
 * A file is written completely before a spool row names it, and unlinked only after the row is gone: a crash
 * between the two steps leaves a file no row names (removed by `reconcile` at the next start), never a row
 * pointing at a partial file. With sync = full the file's data and its directory entry are fsynced before the row
 * is committed; with sync = normal the page cache keeps them across a process kill, as it keeps SQLite's WAL.
 */

/** A row's body file is gone or truncated (deleted by hand, or lost to a power cut with SPOOL_SYNC=normal). */
export class SpoolBodyLostError extends Error {
  readonly code = 'SPOOL_BODY_LOST';
}

export interface BodyFiles {
  /** Writes `body` to a new file and returns its name, once it is as durable as the spool's commits. */
  write(body: Buffer): Promise<string>;
  /** The body of `name`; rejects with SpoolBodyLostError when it is missing or not `size` bytes long. */
  read(name: string, size: number): Promise<Buffer>;
  /** Unlinks files whose rows are deleted (in the background: a file that stays is removed at the next start). */
  remove(names: readonly string[]): void;
  /**
   * At open, before anything else uses the directory: deletes files no row names, and returns the rows (of `named`)
   * whose file is missing or has the wrong size.
   */
  reconcile<Row extends { file: string; size: number }>(named: readonly Row[]): { lost: Row[]; orphans: number };
}

export function openBodyFiles(spoolDir: string, sync: 'normal' | 'full'): BodyFiles {
  const dir = join(spoolDir, 'bodies');
  mkdirSync(dir, { recursive: true });
  const path = (name: string) => join(dir, name);

  const syncDirectory = async () => {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  };

  return {
    async write(body) {
      const name = `${randomUUID()}.envelope`;
      const handle = await open(path(name), 'wx');
      try {
        await handle.writeFile(body);
        if (sync === 'full') await handle.datasync();
      } catch (error) {
        await handle.close().catch(() => {});
        await unlink(path(name)).catch(() => {});
        throw error;
      }
      await handle.close();
      if (sync === 'full') await syncDirectory(); // the new name survives a power cut too
      return name;
    },
    async read(name, size) {
      let body: Buffer;
      try {
        body = await readFile(path(name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT')
          throw new SpoolBodyLostError(`body file ${name} is missing`);
        throw error;
      }
      if (body.length !== size) {
        throw new SpoolBodyLostError(`body file ${name} has ${body.length} bytes, the spool recorded ${size}`);
      }
      return body;
    },
    remove(names) {
      for (const name of names) unlink(path(name)).catch(() => {});
    },
    reconcile(named) {
      const wanted = new Set(named.map((row) => row.file));
      let orphans = 0;
      for (const name of readdirSync(dir)) {
        if (wanted.has(name)) continue;
        unlinkSync(path(name));
        orphans++;
      }
      const lost = named.filter((row) => {
        try {
          return statSync(path(row.file)).size !== row.size;
        } catch {
          return true;
        }
      });
      return { lost, orphans };
    },
  };
}
