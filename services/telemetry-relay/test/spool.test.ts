import { readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { SpoolBodyLostError } from '../src/upstream/body-files.ts';
import { BODY_FILE_THRESHOLD, openSpool, type SpoolEntry } from '../src/upstream/spool.ts';
import { eventually, removeTempDirs, tempDir } from './helpers.ts';

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
    const spool = openSpool({ dir: tempDir('spool-'), sync: 'normal' });
    const ids = spool.insert([1, 2, 3].map((n) => ({ entry: entry(n), leased: false, nextAttemptAt: 0 })));
    expect([spool.count, spool.bytes]).toEqual([3, 12]);
    const first = spool.leaseDue(5000, 2);
    expect(first.map((r) => r.id)).toEqual(ids.slice(0, 2));
    expect(first[0]).toMatchObject({ headers: { 'x-sentry-forwarded-for': '203.0.113.1' }, acceptedAt: 1001 });
    expect(first[0]?.body?.equals(Buffer.from([1, 0, 10, 255]))).toBe(true);
    expect(spool.leaseDue(5000, 10).map((r) => r.id)).toEqual([ids[2]]); // leased rows are not offered again
    spool.remove([ids[0] as number]);
    spool.reschedule(ids[1] as number, 1, 9000);
    expect(spool.leaseDue(5000, 10)).toEqual([]);
    expect(spool.leaseDue(9000, 10).map((r) => [r.id, r.attempts])).toEqual([[ids[1], 1]]);
    expect([spool.count, spool.bytes]).toEqual([2, 8]);
    spool.close();
  });

  it('wakes backed-off rows when upstream is back, and expires old ones', () => {
    const spool = openSpool({ dir: tempDir('spool-'), sync: 'full' });
    const [a, b] = spool.insert([
      { entry: entry(1, 10), leased: false, nextAttemptAt: 60_000 },
      { entry: entry(2, 20_000), leased: false, nextAttemptAt: 60_000 },
    ]);
    spool.wakeAll(100);
    expect(spool.leaseDue(100, 10).map((r) => r.id)).toEqual([a, b]);
    expect(spool.oldestAcceptedAt()).toBe(10);
    expect(spool.expire(1000)).toBe(1);
    expect([spool.count, spool.oldestAcceptedAt()]).toEqual([1, 20_000]);
    spool.close();
  });

  it('keeps everything across a reopen; rows leased by the dead process are due again', () => {
    const dir = tempDir('spool-');
    const before = openSpool({ dir, sync: 'normal' });
    before.insert([
      { entry: entry(1), leased: true, nextAttemptAt: 0 },
      { entry: entry(2), leased: false, nextAttemptAt: 0 },
    ]);
    before.close(); // closing does not release leases: the rows stay as a dead process would leave them
    const after = openSpool({ dir, sync: 'normal' });
    expect([after.count, after.bytes]).toEqual([2, 8]);
    expect(after.leaseDue(Date.now(), 10).map((r) => r.body?.[0])).toEqual([1, 2]);
    after.close();
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
    const spool = openSpool({ dir, sync: 'normal' });
    expect([spool.count, spool.bytes]).toEqual([1, 100_000]);
    const [row] = spool.leaseDue(Date.now(), 1);
    expect(row?.body?.equals(Buffer.alloc(100_000, 9))).toBe(true);
    spool.close();
  });

  it('refuses a directory another live spool holds', () => {
    const dir = tempDir('spool-');
    const first = openSpool({ dir, sync: 'normal' });
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
    const spool = openSpool({ dir, sync: 'full' });
    expect(spool.writeBody(Buffer.alloc(BODY_FILE_THRESHOLD))).toBeUndefined(); // up to the threshold: a blob
    const big = large(7, 3 * 1024 * 1024);
    const a = await spoolOne(spool, big);
    const b = await spoolOne(spool, entry(2));
    expect(a.bodyFile).toMatch(/\.envelope$/);
    expect(b.bodyFile).toBeUndefined();
    expect(bodyFiles(dir)).toEqual([a.bodyFile]);
    expect([spool.count, spool.bytes]).toEqual([2, big.body.length + 4]);

    const [first, second] = spool.leaseDue(Date.now(), 10);
    expect(first).toMatchObject({ id: a.id, bodyFile: a.bodyFile, size: big.body.length, body: undefined });
    expect((await spool.readBody(first as NonNullable<typeof first>)).equals(big.body)).toBe(true);
    expect(second?.body?.equals(entry(2).body)).toBe(true);
    expect(spool.leaseDue(Date.now(), 10)).toEqual([]); // leased: not offered twice

    expect(spool.remove([a.id])).toBe(1);
    expect([spool.count, spool.bytes]).toEqual([1, 4]);
    await eventually(() => bodyFiles(dir).length === 0, 2000, 'the body file to be unlinked');
    spool.close();
  });

  it('counts a large body across a reopen and unlinks expired ones', async () => {
    const dir = tempDir('spool-');
    const before = openSpool({ dir, sync: 'normal' });
    const old = await spoolOne(before, { ...large(1), acceptedAt: 10 });
    await spoolOne(before, { ...large(2, 200_000), acceptedAt: 20_000 });
    before.close();
    const after = openSpool({ dir, sync: 'normal' });
    expect(after.recovered).toEqual({ lostRows: 0, orphanFiles: 0, expiredRows: 0 });
    expect([after.count, after.bytes]).toEqual([2, BODY_FILE_THRESHOLD + 1 + 200_000]);
    expect(after.expire(1000)).toBe(1);
    expect([after.count, after.bytes]).toEqual([1, 200_000]);
    await eventually(() => !bodyFiles(dir).includes(old.bodyFile as string), 2000, 'the expired body file unlinked');
    expect(bodyFiles(dir)).toHaveLength(1);
    after.close();
  });

  it('at open, removes files no row names and drops rows whose file is gone (a crash between the steps)', async () => {
    const dir = tempDir('spool-');
    const before = openSpool({ dir, sync: 'normal' });
    const kept = await spoolOne(before, large(1));
    const missing = await spoolOne(before, large(2));
    const truncated = await spoolOne(before, large(3));
    await spoolOne(before, entry(4));
    const orphan = await before.writeBody(large(5).body); // written, then the process died before the insert
    before.close();
    unlinkSync(join(dir, 'bodies', missing.bodyFile as string));
    writeFileSync(join(dir, 'bodies', truncated.bodyFile as string), 'cut short');

    const after = openSpool({ dir, sync: 'normal' });
    expect(after.recovered).toEqual({ lostRows: 2, orphanFiles: 1, expiredRows: 0 });
    expect(bodyFiles(dir)).not.toContain(orphan);
    expect([after.count, after.bytes]).toEqual([2, BODY_FILE_THRESHOLD + 1 + 4]);
    const rows = after.leaseDue(Date.now(), 10);
    expect(rows.map((r) => r.id)).toEqual([kept.id, expect.any(Number)]);
    expect((await after.readBody(rows[0] as NonNullable<(typeof rows)[0]>)).equals(large(1).body)).toBe(true);
    after.close();
  });

  it('rejects reading a body whose file vanished after leasing with SpoolBodyLostError', async () => {
    const dir = tempDir('spool-');
    const spool = openSpool({ dir, sync: 'normal' });
    const { bodyFile } = await spoolOne(spool, large(1));
    const [row] = spool.leaseDue(Date.now(), 1);
    unlinkSync(join(dir, 'bodies', bodyFile as string));
    await expect(spool.readBody(row as NonNullable<typeof row>)).rejects.toBeInstanceOf(SpoolBodyLostError);
    spool.close();
  });

  it('unlinks the body files of rows that could not be inserted', async () => {
    const dir = tempDir('spool-');
    const spool = openSpool({ dir, sync: 'normal' });
    const bodyFile = await spool.writeBody(large(1).body);
    spool.close();
    expect(() => spool.insert([{ entry: large(1), leased: false, nextAttemptAt: 0, bodyFile }])).toThrow();
    await eventually(() => bodyFiles(dir).length === 0, 2000, 'the body file to be unlinked');
  });
});
