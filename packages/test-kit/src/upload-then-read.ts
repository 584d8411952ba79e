// A client busy uploading: it writes a request's whole body before reading anything, the worst case for a server
// that answers early, so a test sees whether the answer survives the server's close (decision 039).
import { connect, type Socket } from 'node:net';

export interface UploadExchange {
  /** Everything the client read, as latin1 text (the answer's head and body). */
  read: string;
  /** The error the client's socket met, if any (ECONNRESET, EPIPE). */
  error?: string;
  /** Bytes of `chunks` written before the client stopped or failed. */
  written: number;
  /** From the client's last write (its end) to the connection's close: what the server kept it waiting. */
  closedAfterEndMs: number;
}

/**
 * Writes `head`, then `chunks` one by one without reading, then ends and reads until the connection closes. `to` is
 * a loopback port, or a socket already connected there (a request begun on it before).
 */
export async function uploadThenRead(
  to: number | Socket,
  head: string,
  chunks: readonly Buffer[],
): Promise<UploadExchange> {
  const socket: Socket = typeof to === 'number' ? connect(to, '127.0.0.1') : to;
  socket.pause();
  const exchange: UploadExchange = { read: '', written: 0, closedAfterEndMs: 0 };
  socket.on('error', (error: NodeJS.ErrnoException) => {
    exchange.error ??= error.code ?? error.message;
  });
  // Not events.once: it would reject on the socket's error, which some tests expect.
  const closed = new Promise((resolve) => socket.once('close', resolve)).then(() => performance.now());
  if (socket.connecting) await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(head);
  for (const chunk of chunks) {
    if (socket.destroyed) break;
    const ok = await new Promise<boolean>((resolve) => socket.write(chunk, (error) => resolve(!error)));
    if (!ok) break;
    exchange.written += chunk.length;
  }
  const ended = performance.now();
  if (!socket.destroyed) socket.end();
  socket.on('data', (data: Buffer) => {
    exchange.read += data.toString('latin1');
  });
  socket.resume();
  exchange.closedAfterEndMs = Math.max(0, (await closed) - ended);
  return exchange;
}

/** `total` bytes of `a` in chunks of `size`. */
export const chunksOf = (total: number, size = 256 * 1024): Buffer[] =>
  Array.from({ length: Math.ceil(total / size) }, () => Buffer.alloc(size, 0x61));
