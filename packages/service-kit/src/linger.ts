// A lingering close for an answer sent before its request's body arrived: the client still sending reads the
// answer instead of a reset, within a bounded time and byte count (docs/decisions/039-lingering-close.md).
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

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

/** True when `req` declared a body that has not all arrived (Node marks a bodyless request complete only later). */
export function hasUnreadBody(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const { 'content-length': length, 'transfer-encoding': encoding } = req.headers;
  return encoding !== undefined || Number(length) > 0;
}

/**
 * When `req`'s body is still arriving, makes the close after its answer a lingering one and returns true: the caller
 * then sends that answer with `Connection: close`.
 */
export function lingerWhileUnread(
  req: IncomingMessage,
  limits: LingerLimits,
  ended?: (how: LingerEnd) => void,
): boolean {
  if (!hasUnreadBody(req)) return false;
  lingerAfterAnswer(req.socket, limits, ended);
  return true;
}

/**
 * An onSend hook: an answer sent before its request's body arrived (a 404, a body parser's 413, a proxy's refusal)
 * ends the connection lingering, instead of reading the body to its end or resetting the client.
 */
export function closeUnfinishedOnSend(limits: LingerLimits, ended?: (how: LingerEnd) => void) {
  return (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (e: null, p: unknown) => void) => {
    if (lingerWhileUnread(request.raw, limits, ended)) reply.header('connection', 'close');
    done(null, payload);
  };
}
