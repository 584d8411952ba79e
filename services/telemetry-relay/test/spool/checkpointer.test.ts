// The WAL checkpointer's thread never creates the spool's file: one that started late opened, and so created, a
// spool.db in a directory being removed (ENOTEMPTY in CI). Once the spool has closed, its directory stays as it is.

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { removeTempDirs, tempDir } from '@app/test-kit';
import { afterAll, expect, it } from 'vitest';
import { startCheckpointer } from '../../src/spool/checkpointer.ts';
import { openSpool } from '../../src/spool/spool.ts';

afterAll(removeTempDirs);

const settle = () => new Promise((resolve) => setTimeout(resolve, 400));

it('creates no database where the file is gone', async () => {
  const file = join(tempDir('checkpointer-'), 'spool.db');
  const checkpointer = startCheckpointer(file, 20);
  await settle(); // the thread has started and tried to open it
  checkpointer.stop();
  expect(existsSync(file)).toBe(false);
});

it('leaves the spool directory as it is once the spool has closed', async () => {
  const dir = tempDir('checkpointer-');
  const spool = openSpool({ dir, sync: 'normal' });
  await settle(); // the thread has its connection open
  spool.insert([
    {
      entry: {
        url: 'http://127.0.0.1:1/api/1/envelope/',
        dsnKey: 'k',
        project: '1',
        headers: {},
        body: Buffer.from('x'),
        acceptedAt: 1,
        attempts: 0,
      },
      leased: false,
      nextAttemptAt: 0,
    },
  ]);
  spool.close();
  const closed = readdirSync(dir).sort();
  await settle();
  expect(readdirSync(dir).sort()).toEqual(closed);
  expect(closed.filter((name) => name.endsWith('-wal') || name.endsWith('-shm'))).toEqual([]);
});
