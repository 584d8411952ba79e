// A fast path for reading the common small body, with the same limits and charging as the general one.
import type { Readable } from 'node:stream';
import { RelayError } from '../core/errors.ts';
import type { Hold } from '../core/memory/budget.ts';
import { NEWLINE } from '../envelope/bytes.ts';
import { charge } from './body-sink.ts';

/**
 * The common case, a browser's uncompressed envelope of known length up to SMALL_BODY_BYTES: one timer and four
 * listeners, each chunk charged as it arrives; the header line is handed over once the body is complete (cheaper than
 * watching for it at this size). Every other body takes read-body.ts's general path.
 */
export const SMALL_BODY_BYTES = 64 * 1024;

export function readSmallBody(
  body: Readable,
  timeoutMs: number,
  options: { hold: Hold; onHeaderLine?: ((line: Buffer) => void) | undefined },
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error: unknown, value?: Buffer) => {
      clearTimeout(timer);
      body.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (error === undefined) resolve(value as Buffer);
      else {
        body.resume(); // discard the rest; the answer closes the connection
        reject(error);
      }
    };
    const onData = (chunk: Buffer) => {
      try {
        charge(options.hold, chunk.length);
      } catch (error) {
        finish(error);
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    };
    const onEnd = () => {
      const whole = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
      try {
        if (size > 0 && options.onHeaderLine) {
          const newline = whole.indexOf(NEWLINE);
          options.onHeaderLine(newline === -1 ? whole : whole.subarray(0, newline));
        }
      } catch (error) {
        finish(error);
        return;
      }
      finish(undefined, whole);
    };
    const onError = (error: Error) => finish(error);
    const onClose = () =>
      finish(new RelayError('malformed', `the client closed the connection after ${size} bytes of the body`));
    const timer = setTimeout(
      () =>
        finish(new RelayError('body_timeout', `the body did not arrive within ${timeoutMs} ms (${size} bytes read)`)),
      timeoutMs,
    );
    body.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}
