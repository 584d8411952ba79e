// A spooled body file as delivery sends it: streamed whole, or with its header line's sent_at moved forward.
import { closeAfterTest, closeOpened, removeTempDirs, tempDir } from '@app/test-kit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openSpool } from '../../src/spool/spool.ts';
import { fileBodyStream, openFileBody } from '../../src/upstream/streamed-body.ts';
import { leaseDue } from '../spool/read-back.ts';

afterEach(closeOpened);
afterAll(removeTempDirs);

describe('streamed body', () => {
  it('opens a body file for streaming, with its header line rewritten when sent_at moves', async () => {
    const spool = closeAfterTest(openSpool({ dir: tempDir('spool-'), sync: 'normal' }));
    const sentAt = '2026-01-01T00:00:00.000Z';
    const body = Buffer.concat([
      Buffer.from(`{"event_id":"x","sent_at":"${sentAt}"}\n{"type":"attachment","length":200000}\n`),
      Buffer.alloc(200_000, 5),
    ]);
    const entry = { url: 'http://127.0.0.1:1/api/1/envelope/', dsnKey: 'http://k@127.0.0.1:1/1', project: '1' };
    const bodyFile = await spool.writeBody(body);
    spool.insert([
      {
        entry: { ...entry, headers: {}, body, acceptedAt: 1001, attempts: 0 },
        leased: false,
        nextAttemptAt: 0,
        bodyFile,
      },
    ]);
    const [row] = leaseDue(spool, Date.now(), 1);
    const read = async (heldMs: number) => {
      const file = await openFileBody(spool, row as NonNullable<typeof row>, heldMs);
      const chunks: Buffer[] = [];
      for await (const chunk of fileBodyStream(file)) chunks.push(chunk as Buffer);
      await file.handle.close();
      return { bytes: Buffer.concat(chunks), length: file.length };
    };
    const asIs = await read(0);
    expect([asIs.bytes.equals(body), asIs.length]).toEqual([true, body.length]);
    const moved = await read(3_600_000);
    const expected = body.toString('latin1').replace(sentAt, '2026-01-01T01:00:00.000Z');
    expect([moved.bytes.toString('latin1') === expected, moved.length]).toEqual([true, expected.length]);
  });
});
