// The spool directory: created 0700, checked when it must be private (the default one, in the shared temp dir,
// which another user could have made or linked first; not an explicit SPOOL_DIR, which Kubernetes mounts
// group-writable), and locked so that one process at a time uses it.
import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/** Another live process holds the spool directory (two replicas must never share one). */
export class SpoolInUseError extends Error {
  readonly code = 'SPOOL_IN_USE';
}

/** A private spool directory is not this user's alone (see `prepareSpoolDir`). */
export class SpoolUnsafeError extends Error {
  readonly code = 'SPOOL_UNSAFE';
}

/**
 * Creates `dir` (mode 0700) when missing. With `isPrivate`, refuses it unless it is a real directory (not a
 * symbolic link) owned by this user with no access for group or others, in parents that only this user or root can
 * change (or sticky ones, like /tmp, where nobody can rename another's entries).
 */
export function prepareSpoolDir(dir: string, isPrivate: boolean): void {
  const uid = process.getuid?.();
  const path = resolve(dir);
  const unsafe = (why: string) =>
    new SpoolUnsafeError(
      `SPOOL_DIR ${path} ${why}; the default spool directory must belong to this user alone (uid ${uid}): remove it, or set SPOOL_DIR`,
    );
  try {
    mkdirSync(path, { recursive: true, mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (isPrivate && (code === 'EEXIST' || code === 'ENOTDIR')) throw unsafe('is not a directory');
    throw error;
  }
  if (!isPrivate || uid === undefined) return; // no owners or modes to check (Windows)
  const own = lstatSync(path);
  if (own.isSymbolicLink()) throw unsafe('is a symbolic link');
  if (!own.isDirectory()) throw unsafe('is not a directory');
  if (own.uid !== uid) throw unsafe(`belongs to uid ${own.uid}`);
  if ((own.mode & 0o077) !== 0) throw unsafe(`is open to group or others (mode ${(own.mode & 0o777).toString(8)})`);
  for (let parent = dirname(path); ; parent = dirname(parent)) {
    const link = lstatSync(parent);
    const stat = link.isSymbolicLink() ? statSync(parent) : link;
    for (const owner of [link.uid, stat.uid]) {
      if (owner !== 0 && owner !== uid) throw unsafe(`is inside ${parent}, which belongs to uid ${owner}`);
    }
    if ((stat.mode & 0o022) !== 0 && (stat.mode & 0o1000) === 0) {
      throw unsafe(`is inside ${parent}, which others may write to (mode ${(stat.mode & 0o777).toString(8)})`);
    }
    if (dirname(parent) === parent) break;
  }
}

/**
 * Holds an exclusive SQLite lock on `spool.lock` for the life of the process: the operating system drops it when
 * the process dies, even by kill -9, so a restart takes over at once while a second live relay is refused.
 */
export function lockSpoolDir(dir: string): DatabaseSync {
  const file = join(dir, 'spool.lock');
  ownerOnly(file);
  const lock = new DatabaseSync(file);
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

/**
 * Creates (or narrows) a SQLite database file and its -wal/-shm companions to mode 0600, like the body files: they
 * hold client addresses, user agents and referers. SQLite gives the companions it creates the database's mode.
 */
export function ownerOnly(databaseFile: string): void {
  closeSync(openSync(databaseFile, 'a', 0o600));
  for (const file of [databaseFile, `${databaseFile}-wal`, `${databaseFile}-shm`]) {
    if (existsSync(file)) chmodSync(file, 0o600);
  }
}
