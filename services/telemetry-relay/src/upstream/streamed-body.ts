// A spooled body sent straight from its file: at most its header line is read into memory (to move `sent_at`
// forward), the rest is streamed to undici a chunk at a time. So a 20 MiB attachment envelope costs a send the
// same few hundred KiB as a 100 KiB one, and a body larger than the whole memory budget can still be delivered.
import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { shiftSentAt } from '../envelope/sent-at.ts';
import { CHUNK_BYTES, HEAD_MAX_BYTES } from '../spool/file-body-memory.ts';
import type { Spool, SpoolRecord } from '../spool/spool.ts';

export interface FileBody {
  /** Open on the body file; the sender closes it once the send is over. */
  handle: FileHandle;
  /** Sent before the streamed part: the header line with `sent_at` moved forward, or empty. */
  head: Buffer;
  /** Where in the file the streamed part starts (the newline after the replaced header line, or 0). */
  start: number;
  /** The file's size: the streamed part ends there. */
  end: number;
  /** Bytes sent in all, the content-length: `head` plus the streamed part. */
  length: number;
}

const EMPTY = Buffer.alloc(0);

/** Opens a leased file row's body to be sent, its `sent_at` moved forward by `heldMs` when > 0 (prepareFileBody). */
export async function openFileBody(spool: Spool, row: SpoolRecord, heldMs: number): Promise<FileBody> {
  const handle = await spool.openBody(row);
  try {
    return await prepareFileBody(handle, row.size, heldMs);
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Prepares `handle` (a body file of `size` bytes) for sending. Held longer than the caller's threshold
 * (`heldMs` > 0), the header line is read, its `sent_at` rewritten and sent ahead of the rest of the file.
 */
export async function prepareFileBody(handle: FileHandle, size: number, heldMs: number): Promise<FileBody> {
  const whole: FileBody = { handle, head: EMPTY, start: 0, end: size, length: size };
  if (heldMs <= 0) return whole;
  const probe = Buffer.allocUnsafe(Math.min(size, HEAD_MAX_BYTES));
  const { bytesRead } = await handle.read(probe, 0, probe.length, 0);
  const newline = probe.subarray(0, bytesRead).indexOf(0x0a);
  if (newline === -1) return whole; // no header line the relay would have accepted: sent as it is
  const line = probe.subarray(0, newline);
  const head = shiftSentAt(line, heldMs);
  if (head === line) return whole;
  return { handle, head, start: newline, end: size, length: head.length + size - newline };
}

/** The bytes of `body` as a stream with bounded buffers; it leaves the file handle open. */
export function fileBodyStream(body: FileBody): Readable {
  const rest = body.handle.createReadStream({
    start: body.start,
    end: body.end - 1,
    highWaterMark: CHUNK_BYTES,
    autoClose: false,
  });
  if (body.head.length === 0) return rest;
  return Readable.from(prepend(body.head, rest), { objectMode: false, highWaterMark: CHUNK_BYTES });
}

async function* prepend(head: Buffer, rest: Readable): AsyncGenerator<Buffer> {
  yield head;
  yield* rest;
}
