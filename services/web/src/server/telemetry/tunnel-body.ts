// The development tunnel's request body on its way to the relay: streamed as it arrives, cut past the relay's limit
// with a 413 (decision 041).
import { type Readable, Transform } from 'node:stream';

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
