// The SQLite spool: leasing order and bytes, body files, names it refuses to trust, and its directory's checks.

import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { closeAfterTest, closeOpened, eventually, removeTempDirs, tempDir } from '@app/test-kit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SpoolBodyLostError } from '../../src/spool/body-files.ts';
import { BACKING_OFF } from '../../src/spool/database.ts';
import { STREAMED_BODY_BYTES } from '../../src/spool/file-body-memory.ts';
import { BODY_FILE_THRESHOLD, openSpool, type SpoolEntry } from '../../src/spool/spool.ts';
import { leaseDue, readSpooledBody } from './read-back.ts';

afterEach(closeOpened);
afterAll(removeTempDirs);

const entry = (n: number, acceptedAt = 1000 + n): SpoolEntry => ({
  url: 'http://127.0.0.1:1/api/1/envelope/',
  dsnKey: 'http://k@127.0.0.1:1/1',
  project: '1',
  headers: { 'x-sentry-forwarded-for': `203.0.113.${n}` },
  body: Buffer.from([n, 0, 10, 255]),
  acceptedAt,
  attempts: 0,
});

describe('spool (SQLite, WAL)', () => {
  it('hands out due rows oldest first, once, and keeps count and bytes', () => {
    const spool = closeAfterTest(openSpool({ dir: tempDir('spool-'), sync: 'normal' }));
    const ids = spool.insert([1, 2, 3].map((n) => ({ entry: entry(n), leased: false, nextAttemptAt: 0 })));
    expect([spool.count, spool.bytes]).toEqual([3, 12]);
    const first = leaseDue(spool, 5000, 2);
    expect(first.map((r) => r.id)).toEqual(ids.slice(0, 2));
    expect(first[0]).toMatchObject({ headers: { 'x-sentry-forwarded-for': '203.0.113.1' }, acceptedAt: 1001 });
    expect(first[0]?.body?.equals(Buffer.from([1, 0, 10, 255]))).toBe(true);
    expect(leaseDue(spool, 5000, 10).map((r) => r.id)).toEqual([ids[2]]); // leased rows are not offered again
    spool.remove([ids[0] as number]);
    spool.reschedule(ids[1] as number, 1, 9000);
    expect(leaseDue(spool, 5000, 10)).toEqual([]);
    expect(leaseDue(spool, 9000, 10).map((r) => [r.id, r.attempts])).toEqual([[ids[1], 1]]);
    expect([spool.count, spool.bytes]).toEqual([2, 8]);
  });

  it('wakes backed-off rows when upstream is back, and expires old ones', () => {
    const spool = closeAfterTest(openSpool({ dir: tempDir('spool-'), sync: 'full' }));
    const [a, b] = spool.insert([
      { entry: entry(1, 10), leased: false, nextAttemptAt: 60_000 },
      { entry: entry(2, 20_000), leased: false, nextAttemptAt: 60_000 },
    ]);
    spool.wakeAll(100);
    expect(leaseDue(spool, 100, 10).map((r) => r.id)).toEqual([a, b]);
    expect(spool.oldestAcceptedAt()).toBe(10);
    expect(spool.expire(1000)).toBe(1);
    expect([spool.count, spool.oldestAcceptedAt()]).toEqual([1, 20_000]);
  });

  it('leases without writing to the database; expiry and waking read an index, not every row', () => {
    // Before (decision 029): a lease rewrote its row, body and all, and both sweeps scanned the whole table (≈ 250 ms
    // of blocked event loop at 100 000 rows).
    const dir = tempDir('spool-');
    const spool = closeAfterTest(openSpool({ dir, sync: 'normal' }));
    spool.insert([1, 2, 3, 4].map((n) => ({ entry: entry(n), leased: false, nextAttemptAt: 0 })));
    const reader = new DatabaseSync(join(dir, 'spool.sqlite'), { readOnly: true });
    try {
      const version = () => (reader.prepare('PRAGMA data_version').get() as { data_version: number }).data_version;
      const before = version();
      expect(leaseDue(spool, 5000, 3)).toHaveLength(3);
      expect(version()).toBe(before); // another connection sees no commit that changed anything
      const plan = (sql: string) =>
        (reader.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>).map((r) => r.detail).join();
      expect(plan('DELETE FROM envelopes WHERE accepted_at < 1')).toMatch(/USING INDEX envelopes_accepted_at/);
      expect(plan(`UPDATE envelopes SET next_attempt_at = 1 WHERE ${BACKING_OFF} AND next_attempt_at > 1`)).toMatch(
        /USING INDEX envelopes_backing_off/,
      );
    } finally {
      reader.close();
    }
  });

  it('keeps everything across a reopen; rows leased by the dead process are due again', () => {
    const dir = tempDir('spool-');
    const before = closeAfterTest(openSpool({ dir, sync: 'normal' }));
    before.insert([
      { entry: entry(1), leased: true, nextAttemptAt: 0 },
      { entry: entry(2), leased: false, nextAttemptAt: 0 },
    ]);
    before.close(); // closing does not release leases: the rows stay as a dead process would leave them
    const after = closeAfterTest(openSpool({ dir, sync: 'normal' }));
    expect([after.count, after.bytes]).toEqual([2, 8]);
    expect(leaseDue(after, Date.now(), 10).map((r) => r.body?.[0])).toEqual([1, 2]);
  });

  it('opens a spool written before bodies could be files (adds the columns, keeps the rows)', () => {
    const dir = tempDir('spool-');
    const old = new DatabaseSync(join(dir, 'spool.sqlite'));
    old.exec(`CREATE TABLE envelopes (id INTEGER PRIMARY KEY AUTOINCREMENT, accepted_at INTEGER NOT NULL,
      next_attempt_at INTEGER NOT NULL, attempts INTEGER NOT NULL, url TEXT NOT NULL, dsn_key TEXT NOT NULL,
      project TEXT NOT NULL, headers TEXT NOT NULL, body BLOB NOT NULL)`);
    old
      .prepare('INSERT INTO envelopes VALUES (NULL, 5, 0, 0, ?, ?, ?, ?, ?)')
      .run('http://127.0.0.1:1/api/1/envelope/', 'k', '1', '{}', Buffer.alloc(100_000, 9));
    old.close();
    const spool = closeAfterTest(openSpool({ dir, sync: 'normal' }));
    expect([spool.count, spool.bytes]).toEqual([1, 100_000]);
    const [row] = leaseDue(spool, Date.now(), 1);
    expect(row?.body?.equals(Buffer.alloc(100_000, 9))).toBe(true);
  });

  it('refuses a directory another live spool holds', () => {
    const dir = tempDir('spool-');
    const first = closeAfterTest(openSpool({ dir, sync: 'normal' }));
    expect(() => openSpool({ dir, sync: 'normal' })).toThrow(/in use by another telemetry-relay process/);
    first.close();
    openSpool({ dir, sync: 'normal' }).close();
  });
});

describe('spool: large bodies in their own files', () => {
  const large = (fill: number, size = BODY_FILE_THRESHOLD + 1) => ({ ...entry(fill), body: Buffer.alloc(size, fill) });
  const bodyFiles = (dir: string) => readdirSync(join(dir, 'bodies')).sort();
  /** Writes the body file (large bodies only), then inserts the row, as delivery does. */
  const spoolOne = async (spool: ReturnType<typeof openSpool>, item: SpoolEntry) => {
    const bodyFile = await spool.writeBody(item.body);
    const [id] = spool.insert([{ entry: item, leased: false, nextAttemptAt: 0, bodyFile }]);
    return { id: id as number, bodyFile };
  };

  it('round-trips a large body through a file: insert, lease, read, remove; count and bytes stay exact', async () => {
    const dir = tempDir('spool-');
    const spool = closeAfterTest(openSpool({ dir, sync: 'full' }));
    expect(spool.writeBody(Buffer.alloc(BODY_FILE_THRESHOLD))).toBeUndefined(); // up to the threshold: a blob
    const big = large(7, 3 * 1024 * 1024);
    const a = await spoolOne(spool, big);
    const b = await spoolOne(spool, entry(2));
    expect(a.bodyFile).toMatch(/\.envelope$/);
    expect(b.bodyFile).toBeUndefined();
    expect(bodyFiles(dir)).toEqual([a.bodyFile]);
    expect([spool.count, spool.bytes]).toEqual([2, big.body.length + 4]);

    const [first, second] = leaseDue(spool, Date.now(), 10);
    expect(first).toMatchObject({ id: a.id, bodyFile: a.bodyFile, size: big.body.length, body: undefined });
    expect((await readSpooledBody(spool, first)).equals(big.body)).toBe(true);
    expect(second?.body?.equals(entry(2).body)).toBe(true);
    expect(leaseDue(spool, Date.now(), 10)).toEqual([]); // leased: not offered twice

    expect(spool.remove([a.id])).toBe(1);
    expect([spool.count, spool.bytes]).toEqual([1, 4]);
    await eventually(() => bodyFiles(dir).length === 0, 2000, 'the body file to be unlinked');
  });

  it('counts a large body across a reopen and unlinks expired ones', async () => {
    const dir = tempDir('spool-');
    const before = closeAfterTest(openSpool({ dir, sync: 'normal' }));
    const old = await spoolOne(before, { ...large(1), acceptedAt: 10 });
    await spoolOne(before, { ...large(2, 200_000), acceptedAt: 20_000 });
    before.close();
    const after = closeAfterTest(openSpool({ dir, sync: 'normal' }));
    expect(after.recovered).toEqual({ lostRows: 0, orphanFiles: 0, expiredRows: 0 });
    expect([after.count, after.bytes]).toEqual([2, BODY_FILE_THRESHOLD + 1 + 200_000]);
    expect(after.expire(1000)).toBe(1);
    expect([after.count, after.bytes]).toEqual([1, 200_000]);
    await eventually(() => !bodyFiles(dir).includes(old.bodyFile as string), 2000, 'the expired body file unlinked');
    expect(bodyFiles(dir)).toHaveLength(1);
  });

  it('at open, removes files no row names and drops rows whose file is gone (a crash between the steps)', async () => {
    const dir = tempDir('spool-');
    const before = closeAfterTest(openSpool({ dir, sync: 'normal' }));
    const kept = await spoolOne(before, large(1));
    const missing = await spoolOne(before, large(2));
    const truncated = await spoolOne(before, large(3));
    await spoolOne(before, entry(4));
    const orphan = await before.writeBody(large(5).body); // written, then the process died before the insert
    before.close();
    unlinkSync(join(dir, 'bodies', missing.bodyFile as string));
    writeFileSync(join(dir, 'bodies', truncated.bodyFile as string), 'cut short');

    const after = closeAfterTest(openSpool({ dir, sync: 'normal' }));
    expect(after.recovered).toEqual({ lostRows: 2, orphanFiles: 1, expiredRows: 0 });
    expect(bodyFiles(dir)).not.toContain(orphan);
    expect([after.count, after.bytes]).toEqual([2, BODY_FILE_THRESHOLD + 1 + 4]);
    const rows = leaseDue(after, Date.now(), 10);
    expect(rows.map((r) => r.id)).toEqual([kept.id, expect.any(Number)]);
    expect((await readSpooledBody(after, rows[0])).equals(large(1).body)).toBe(true);
  });

  it('rejects reading a body whose file vanished after leasing with SpoolBodyLostError', async () => {
    const dir = tempDir('spool-');
    const spool = closeAfterTest(openSpool({ dir, sync: 'normal' }));
    const { bodyFile } = await spoolOne(spool, large(1));
    const [row] = leaseDue(spool, Date.now(), 1);
    unlinkSync(join(dir, 'bodies', bodyFile as string));
    await expect(readSpooledBody(spool, row)).rejects.toBeInstanceOf(SpoolBodyLostError);
  });

  it('unlinks the body files of rows that could not be inserted', async () => {
    const dir = tempDir('spool-');
    const spool = closeAfterTest(openSpool({ dir, sync: 'normal' }));
    const bodyFile = await spool.writeBody(large(1).body);
    spool.close();
    expect(() => spool.insert([{ entry: large(1), leased: false, nextAttemptAt: 0, bodyFile }])).toThrow();
    await eventually(() => bodyFiles(dir).length === 0, 2000, 'the body file to be unlinked');
  });
});

describe('spool: leasing by bytes', () => {
  const sized = (n: number, size: number) => ({ ...entry(n), body: Buffer.alloc(size, n) });
  const spoolAll = async (spool: ReturnType<typeof openSpool>, items: SpoolEntry[]) => {
    for (const item of items) {
      const bodyFile = await spool.writeBody(item.body);
      spool.insert([{ entry: item, leased: false, nextAttemptAt: 0, bodyFile }]);
    }
  };

  it('leases oldest first and stops before the first row that does not fit; a body file costs its streaming window', async () => {
    const spool = closeAfterTest(openSpool({ dir: tempDir('spool-'), sync: 'normal' }));
    // 10 KB, 20 MiB in a file, 30 KB, 5 KB
    await spoolAll(spool, [sized(1, 10_000), sized(2, 20 * 1024 * 1024), sized(3, 30_000), sized(4, 5_000)]);
    const lease = (maxBytes: number, maxRows = 10) => spool.lease({ now: Date.now(), maxRows, maxBytes });

    expect(lease(9_999).rows).toEqual([]); // the oldest does not fit: nothing behind it jumps the queue
    const first = lease(10_000 + STREAMED_BODY_BYTES + 29_999);
    expect(first.rows.map((r) => [r.body?.[0] ?? r.bodyFile?.length, r.memoryBytes])).toEqual([
      [1, 10_000],
      [45, STREAMED_BODY_BYTES], // a file name; its 20 MiB are streamed, not held
    ]);
    expect(first.bytes).toBe(10_000 + STREAMED_BODY_BYTES);
    expect(lease(100_000, 1).rows.map((r) => r.body?.[0])).toEqual([3]);
    expect(spool.unleasedCount).toBe(1);
    expect(lease(100_000).rows.map((r) => r.body?.[0])).toEqual([4]);
    expect([spool.unleasedCount, spool.count]).toEqual([0, 4]);
  });

  it('deletes rows past their age and rows whose destination is refused instead of leasing them, with their files', async () => {
    const dir = tempDir('spool-');
    const spool = closeAfterTest(openSpool({ dir, sync: 'normal' }));
    const refused = 'http://gone@127.0.0.1:1/2';
    await spoolAll(spool, [
      { ...sized(1, 100_000), acceptedAt: 10 }, // expired, in a file
      { ...entry(2), dsnKey: refused },
      entry(3),
      { ...sized(4, 100_000), dsnKey: refused }, // refused, in a file
      entry(5),
    ]);
    const lease = spool.lease({
      now: Date.now(),
      maxRows: 10,
      maxBytes: 1_000_000,
      expireBefore: 1000,
      isAllowed: ({ dsnKey }) => dsnKey !== refused,
    });
    expect([lease.rows.map((r) => r.body?.[0]), lease.expired, lease.notAllowed]).toEqual([[3, 5], 1, 2]);
    expect([spool.count, spool.bytes, spool.unleasedCount]).toEqual([2, 8, 0]);
    await eventually(() => readdirSync(join(dir, 'bodies')).length === 0, 2000, 'the files unlinked');
  });

  it('keeps unleasedCount exact through insert, lease, reschedule, remove, expire and reopen', () => {
    const dir = tempDir('spool-');
    const spool = closeAfterTest(openSpool({ dir, sync: 'normal' }));
    const [a, b, c] = spool.insert([
      { entry: entry(1, 5), leased: true, nextAttemptAt: 0 },
      { entry: entry(2), leased: false, nextAttemptAt: 0 },
      { entry: entry(3), leased: false, nextAttemptAt: 50_000 },
    ]) as [number, number, number];
    expect(spool.unleasedCount).toBe(2);
    expect(leaseDue(spool, 1000, 10).map((r) => r.id)).toEqual([b]);
    expect(spool.unleasedCount).toBe(1);
    spool.reschedule(b, 1, 60_000);
    spool.reschedule(b, 1, 60_000); // not leased any more: a no-op
    expect(spool.unleasedCount).toBe(2);
    spool.remove([c]);
    expect(spool.unleasedCount).toBe(1);
    expect(spool.expire(100)).toBe(1); // a, leased
    expect([spool.count, spool.unleasedCount]).toEqual([1, 1]);
    spool.insert([{ entry: entry(4), leased: true, nextAttemptAt: 0 }]);
    spool.close();
    const after = closeAfterTest(openSpool({ dir, sync: 'normal' }));
    expect([after.count, after.unleasedCount]).toEqual([2, 2]);
    expect(a).toBeLessThan(b);
  });

  it('deletes rows past maxAgeMs as it opens, before anything could lease them', async () => {
    const dir = tempDir('spool-');
    const before = closeAfterTest(openSpool({ dir, sync: 'normal' }));
    const old = sized(1, 100_000);
    const bodyFile = await before.writeBody(old.body);
    before.insert([
      { entry: { ...old, acceptedAt: Date.now() - 7_200_000 }, leased: true, nextAttemptAt: 0, bodyFile },
      { entry: { ...entry(2), acceptedAt: Date.now() }, leased: true, nextAttemptAt: 0 },
    ]);
    before.close();
    const after = closeAfterTest(openSpool({ dir, sync: 'normal', maxAgeMs: 3_600_000 }));
    expect(after.recovered).toEqual({ lostRows: 0, orphanFiles: 0, expiredRows: 1 });
    expect(leaseDue(after, Date.now(), 10).map((r) => r.body?.[0])).toEqual([2]);
    await eventually(() => readdirSync(join(dir, 'bodies')).length === 0, 2000, 'the expired body file unlinked');
  });
});

describe('spool: body file names come from the database and are not trusted', () => {
  const UUID = '0b9cf4c6-5f0e-4a57-9c3b-6a1d2f4e8a10';
  it.each([
    ['a path out of the directory', '../../outside.envelope'],
    ['an absolute path', '/etc/hostname'],
    ['a name it never generates', 'notes.txt'],
    ['a UUID name with a path after it', `${UUID}.envelope/../../outside.envelope`],
  ])('a row naming %s counts as lost, and nothing outside bodies/ is read or unlinked', async (_case, name) => {
    const dir = tempDir('spool-');
    const outside = join(dir, 'outside.envelope');
    writeFileSync(outside, 'x'.repeat(100_000));
    const spool = closeAfterTest(openSpool({ dir, sync: 'normal' }));
    const [id] = spool.insert([{ entry: entry(1), leased: false, nextAttemptAt: 0 }]) as [number];
    // Tampered while the spool is open (a second connection, as the sqlite3 tool would): reading it fails as lost.
    const db = new DatabaseSync(join(dir, 'spool.sqlite'));
    db.prepare('UPDATE envelopes SET body = ?, body_file = ?, body_size = 100000 WHERE id = ?').run(
      Buffer.alloc(0),
      name,
      id,
    );
    db.close();
    const [row] = leaseDue(spool, Date.now(), 1);
    await expect(spool.openBody(row as NonNullable<typeof row>)).rejects.toBeInstanceOf(SpoolBodyLostError);
    await expect(readSpooledBody(spool, row)).rejects.toBeInstanceOf(SpoolBodyLostError);
    spool.close();
    // At the next start the row is dropped as lost; the file it names is left alone.
    const after = closeAfterTest(openSpool({ dir, sync: 'normal' }));
    expect([after.recovered.lostRows, after.count]).toEqual([1, 0]);
    after.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(outside)).toBe(true);
  });

  it('does not follow a symbolic link that has a body file name', async () => {
    const dir = tempDir('spool-');
    const spool = closeAfterTest(openSpool({ dir, sync: 'normal' }));
    const bodyFile = (await spool.writeBody(Buffer.alloc(100_000, 1))) as string;
    spool.insert([
      { entry: { ...entry(1), body: Buffer.alloc(100_000, 1) }, leased: false, nextAttemptAt: 0, bodyFile },
    ]);
    const target = join(dir, 'secret');
    writeFileSync(target, Buffer.alloc(100_000, 2));
    unlinkSync(join(dir, 'bodies', bodyFile));
    symlinkSync(target, join(dir, 'bodies', bodyFile));
    const [row] = leaseDue(spool, Date.now(), 1);
    await expect(readSpooledBody(spool, row)).rejects.toThrow(/symbolic link/);
    spool.close();
    expect(closeAfterTest(openSpool({ dir, sync: 'normal' })).recovered.lostRows).toBe(1);
  });
});

describe('spool directory', () => {
  const unsafe = /SPOOL_UNSAFE|must belong to this user alone/;
  it.each([
    [
      'a symbolic link',
      (base: string) => {
        symlinkSync(mkdir(join(base, 'real')), join(base, 'link'));
        return join(base, 'link');
      },
    ],
    [
      'a file',
      (base: string) => {
        writeFileSync(join(base, 'file'), '');
        return join(base, 'file');
      },
    ],
    ['open to others', (base: string) => chmod(mkdir(join(base, 'open')), 0o755)],
    ['open to its group', (base: string) => chmod(mkdir(join(base, 'group')), 0o770)],
    [
      "another user's",
      (base: string) => {
        if (process.getuid?.() !== 0) return '/'; // owned by root, not by this user
        const dir = mkdir(join(base, 'theirs'));
        chownSync(dir, 65534, 65534);
        return dir;
      },
    ],
    [
      'inside a directory others may write to',
      (base: string) => join(chmod(mkdir(join(base, 'shared')), 0o777), 'spool'),
    ],
  ])('private: refuses %s with SPOOL_UNSAFE', (_case, make) => {
    const dir = make(tempDir('spool-'));
    let error: (Error & { code?: string }) | undefined;
    try {
      openSpool({ dir, sync: 'normal', private: true }).close();
    } catch (caught) {
      error = caught as Error;
    }
    expect(error?.code).toBe('SPOOL_UNSAFE');
    expect(error?.message).toMatch(unsafe);
  });

  it('private: creates a missing directory (and its parents) with mode 0700 and takes it', () => {
    const base = tempDir('spool-');
    const dir = join(base, 'telemetry-relay-test', 'spool');
    openSpool({ dir, sync: 'normal', private: true }).close();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(base, 'telemetry-relay-test')).mode & 0o777).toBe(0o700);
    openSpool({ dir, sync: 'normal', private: true }).close(); // and again at the next start
  });

  it('creates the database, its -wal and -shm and the lock 0600 like the body files, and narrows an older spool', () => {
    const dir = tempDir('spool-');
    const files = ['spool.sqlite', 'spool.sqlite-wal', 'spool.sqlite-shm', 'spool.lock'];
    // An older spool's database, written 0644.
    for (const file of files.slice(0, 2)) writeFileSync(join(dir, file), '', { mode: 0o644 });
    const spool = closeAfterTest(openSpool({ dir, sync: 'normal' }));
    spool.insert([{ entry: entry(1), leased: false, nextAttemptAt: 0 }]);
    expect(files.map((file) => (statSync(join(dir, file)).mode & 0o777).toString(8))).toEqual(files.map(() => '600'));
    const fresh = tempDir('spool-');
    closeAfterTest(openSpool({ dir: fresh, sync: 'normal' })).insert([
      { entry: entry(2), leased: false, nextAttemptAt: 0 },
    ]);
    expect(files.map((file) => (statSync(join(fresh, file)).mode & 0o777).toString(8))).toEqual(files.map(() => '600'));
  });

  it('not private: takes a group-writable directory (a Kubernetes volume with fsGroup), creates missing ones 0700', () => {
    const base = tempDir('spool-');
    openSpool({ dir: chmod(mkdir(join(base, 'volume')), 0o2775), sync: 'normal' }).close();
    openSpool({ dir: join(base, 'new'), sync: 'normal' }).close();
    expect(statSync(join(base, 'new')).mode & 0o777).toBe(0o700);
  });
});

function mkdir(dir: string): string {
  mkdirSync(dir);
  return dir;
}

function chmod(dir: string, mode: number): string {
  chmodSync(dir, mode);
  return dir;
}
