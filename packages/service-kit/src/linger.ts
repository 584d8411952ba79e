// A lingering close for an answer sent before its request's body arrived: the client still sending reads the
// answer instead of a reset, within a bounded time and byte count (docs/decisions/039-lingering-close.md).
import type { Socket } from 'node:net';

export interface LingerLimits {
  /** Longest the service reads and drops what the client still sends (0: close at once). */
  ms: number;
  /** Most bytes it reads so; past them the socket is closed at once. */
  bytes: number;
}

/** How a linger ended: the client closed, the time ran out, or the client sent too much. */
export type LingerEnd = 'client' | 'time' | 'bytes';

/** Lingers `ms`, reading up to twice the largest body accepted: a client a little over the limit reads its 413. */
export const lingerLimits = (ms: number, maxBodyBytes: number): LingerLimits => ({ ms, bytes: 2 * maxBodyBytes });

/**
 * Makes the close that follows this socket's `Connection: close` answer a lingering one. Node's server ends such a
 * socket with `destroySoon()`, which closes it as soon as the answer is out: a client still writing then meets a
 * reset, and Node's clients drop the answer they had not read yet. `ended`, when given, is told how the linger ended
 * (the relay counts it).
 */
export function lingerAfterAnswer(socket: Socket, limits: LingerLimits, ended?: (how: LingerEnd) => void): void {
  if (limits.ms === 0 || socket.destroyed) return;
  socket.destroySoon = () => {
    let how: LingerEnd = 'client';
    const stop = (reason: LingerEnd) => {
      how = reason;
      socket.destroy();
    };
    const from = socket.bytesRead;
    const timer = setTimeout(stop, limits.ms, 'time');
    socket.once('close', () => {
      clearTimeout(timer);
      ended?.(how);
    });
    // Nothing read after the answer is a request: the server's parser no longer sees the bytes.
    socket.removeAllListeners('data');
    socket.on('data', () => {
      if (socket.bytesRead - from > limits.bytes) stop('bytes');
    });
    socket.resume();
    socket.end();
  };
}
