// Spooled bodies over BODY_FILE_THRESHOLD, one file each in `<spool dir>/bodies/`, written and streamed through
// libuv's thread pool. A file is complete before a row names it and unlinked after the row is gone; only names this
// code generates are opened, never through a link (docs/decisions/001-sqlite-spool-and-body-files.md).
import { randomUUID } from 'node:crypto';
import { constants, lstatSync, mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import { type FileHandle, open, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** A row's body file is gone, truncated, or not one this relay wrote (lost to a power cut, deleted, tampered). */
export class SpoolBodyLostError extends Error {
  readonly code = 'SPOOL_BODY_LOST';
}

const NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.envelope$/;

/** True for the names `write` generates; nothing else is ever opened or unlinked. */
const isBodyFileName = (name: string): boolean => NAME.test(name);

export interface BodyFiles {
  /** Writes `body` to a new file and returns its name, once it is as durable as the spool's commits. */
  write(body: Buffer): Promise<string>;
  /**
   * Opens `name` to be read; the caller closes the handle. Rejects with SpoolBodyLostError when the name is not one
   * of ours, or the file is missing, not a regular file, or not `size` bytes long.
   */
  open(name: string, size: number): Promise<FileHandle>;
  /** Unlinks files whose rows are deleted (in the background: a file that stays is removed at the next start). */
  remove(names: readonly string[]): void;
  /**
   * At open, before anything else uses the directory: deletes our files no row names, and returns the rows (of
   * `named`) whose file is missing, has the wrong size, or whose name is not one of ours.
   */
  reconcile<Row extends { file: string; size: number }>(named: readonly Row[]): { lost: Row[]; orphans: number };
}

export function openBodyFiles(spoolDir: string, sync: 'normal' | 'full'): BodyFiles {
  const dir = join(spoolDir, 'bodies');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = (name: string) => join(dir, name);

  const syncDirectory = async () => {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  };
  /** Opens one of our files for reading, checked to be a regular file of `size` bytes. */
  const openChecked = async (name: string, size: number): Promise<FileHandle> => {
    if (!isBodyFileName(name)) {
      throw new SpoolBodyLostError(`the spool names a body file ${JSON.stringify(name.slice(0, 80))} it never wrote`);
    }
    let handle: FileHandle;
    try {
      handle = await open(path(name), constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new SpoolBodyLostError(`body file ${name} is missing`);
      if (code === 'ELOOP') throw new SpoolBodyLostError(`body file ${name} is a symbolic link`);
      throw error;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new SpoolBodyLostError(`body file ${name} is not a regular file`);
      if (stat.size !== size) {
        throw new SpoolBodyLostError(`body file ${name} has ${stat.size} bytes, the spool recorded ${size}`);
      }
      return handle;
    } catch (error) {
      await handle.close();
      throw error;
    }
  };

  return {
    async write(body) {
      const name = `${randomUUID()}.envelope`;
      const handle = await open(path(name), 'wx', 0o600);
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
    open: openChecked,
    remove(names) {
      for (const name of names) if (isBodyFileName(name)) unlink(path(name)).catch(() => {});
    },
    reconcile(named) {
      const wanted = new Set(named.map((row) => row.file));
      let orphans = 0;
      for (const name of readdirSync(dir)) {
        if (wanted.has(name) || !isBodyFileName(name)) continue; // not ours: left alone
        try {
          unlinkSync(path(name));
          orphans++;
        } catch {} // a directory by that name, say: nothing this spool reads
      }
      const lost = named.filter((row) => {
        if (!isBodyFileName(row.file)) return true;
        try {
          const stat = lstatSync(path(row.file));
          return !stat.isFile() || stat.size !== row.size;
        } catch {
          return true;
        }
      });
      return { lost, orphans };
    },
  };
}
