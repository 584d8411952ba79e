import { afterAll, describe, expect, it } from 'vitest';
import { openSpool, type SpoolEntry } from '../src/upstream/spool.ts';
import { removeTempDirs, tempDir } from './helpers.ts';

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
    expect(first[0]?.body.equals(Buffer.from([1, 0, 10, 255]))).toBe(true);
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
    expect(after.leaseDue(Date.now(), 10).map((r) => r.body[0])).toEqual([1, 2]);
    after.close();
  });

  it('refuses a directory another live spool holds', () => {
    const dir = tempDir('spool-');
    const first = openSpool({ dir, sync: 'normal' });
    expect(() => openSpool({ dir, sync: 'normal' })).toThrow(/in use by another telemetry-relay process/);
    first.close();
    openSpool({ dir, sync: 'normal' }).close();
  });
});
