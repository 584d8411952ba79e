// The development tunnel's request body on its way to the relay: streamed as it arrives, cut past the relay's limit;
// an answer sent before the whole body arrived closes the connection lingering (decisions 039, 041), so a client
// still sending reads it instead of a reset or a connection left unread until a server timeout.
import { type Readable, Transform } from 'node:stream';
import { type LingerLimits, lingerAfterAnswer } from '@app/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * `payload` piped through a stream that fails once more than `limit` bytes have passed (calling `over` first). It
 * is what undici sends: when the send fails undici destroys it, never the client's request.
 */
export function limitedBody(payload: Readable, limit: number, over: () => void): Transform {
  let bytes = 0;
  const body = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes <= limit) return done(null, chunk);
      over();
      done(new Error(`the tunnel body passed ${limit} bytes`));
    },
  });
  payload.on('error', (error) => body.destroy(error)).pipe(body);
  return body;
}

/** What refuseOversized needs of a reply: the route's, or reply-from's in its onError (typed for any server). */
interface Answering {
  code(status: number): { type(contentType: string): { send(body: string): unknown } };
}

/** The 413 for a body over `limit`, declared or streamed. */
export const refuseOversized = (reply: Answering, limit: number) =>
  reply.code(413).type('text/plain; charset=utf-8').send(`the body exceeds the relay's ${limit} bytes`);

/** An onSend hook: an answer to a request whose body has not all arrived ends its connection, lingering. */
export function closeUnfinished(linger: LingerLimits) {
  return (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (e: null, p: unknown) => void) => {
    if (!request.raw.complete) {
      reply.header('connection', 'close');
      lingerAfterAnswer(request.raw.socket, linger);
    }
    done(null, payload);
  };
}
