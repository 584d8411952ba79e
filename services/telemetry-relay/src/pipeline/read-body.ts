// The request body as bytes, bounded on the wire, after decompression (at most maxDecompressionRatio
// times the bytes received, beyond RATIO_FLOOR: a 40-byte bomb stops within a megabyte), in time and by the memory
// budget; the envelope header line is handed over as soon as it arrives (body-sink.ts).
import type { Readable } from 'node:stream';
import { quote, RelayError } from '../core/errors.ts';
import type { Hold } from '../core/memory/budget.ts';
import { BodyDecoding } from './body-decoding.ts';
import { createBodySink } from './body-sink.ts';
import { type Encoding, encodingFor, SUPPORTED_ENCODINGS } from './decoders.ts';
import { readSmallBody, SMALL_BODY_BYTES } from './small-body.ts';

export { RATIO_FLOOR } from './body-decoding.ts';

export interface BodyLimits {
  /** Most bytes on the wire (compressed, if it is). */
  maxBodyBytes: number;
  /** Most bytes after decompression: the envelope limit. */
  maxEnvelopeBytes: number;
  /** The whole body must arrive within this time. */
  timeoutMs: number;
  maxDecompressionRatio: number;
  /** Longest envelope header line. */
  maxHeaderBytes: number;
}

export interface BodyReadOptions {
  /** What this request holds of the memory budget: charged for every byte kept and a decoder's window. */
  hold: Hold;
  /** Called with the envelope header line (without its newline) once it has arrived; a throw refuses the body. */
  onHeaderLine?: (line: Buffer) => void;
}

const YIELD_EVERY = 512 * 1024;

type BodyHeaders = { 'content-encoding'?: string | undefined; 'content-length'?: string | undefined };

export function readBody(
  body: Readable,
  headers: BodyHeaders,
  limits: BodyLimits,
  options: BodyReadOptions,
): Promise<Buffer> {
  const framing = bodyFraming(headers, limits);
  if (framing instanceof RelayError) {
    body.resume();
    return Promise.reject(framing);
  }
  const { encoding, declared } = framing;
  if (!encoding && declared !== undefined && declared <= SMALL_BODY_BYTES) {
    return readSmallBody(body, limits.timeoutMs, options);
  }
  return readStreamed(body, framing, limits, options);
}

interface Framing {
  /** Content-Encoding's decoder, none for identity. */
  encoding: Encoding | undefined;
  name: string;
  /** Content-Length when it is a positive safe integer. */
  declared: number | undefined;
}

/** What the headers say of the body, or why it is refused before a byte is read. */
function bodyFraming(headers: BodyHeaders, limits: BodyLimits): Framing | RelayError {
  const name = (headers['content-encoding'] ?? 'identity').trim().toLowerCase() || 'identity';
  const encoding = name === 'identity' ? undefined : encodingFor(name);
  if (name !== 'identity' && !encoding) {
    return new RelayError(
      'unsupported_encoding',
      `Content-Encoding ${quote(name)} is not supported (use one of ${SUPPORTED_ENCODINGS.join(', ')})`,
    );
  }
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxBodyBytes) {
    return new RelayError('too_large', `the body is ${declared} bytes; at most ${limits.maxBodyBytes} are accepted`);
  }
  return { encoding, name, declared: Number.isSafeInteger(declared) && declared > 0 ? declared : undefined };
}

/** Reads the body chunk by chunk as it arrives, through its decoder if it has one, within the size and time limits. */
function readStreamed(body: Readable, framing: Framing, limits: BodyLimits, options: BodyReadOptions): Promise<Buffer> {
  const { encoding, name, declared } = framing;
  return new Promise((resolve, reject) => {
    const sink = createBodySink({
      hold: options.hold,
      max: encoding ? limits.maxEnvelopeBytes : Math.min(limits.maxBodyBytes, limits.maxEnvelopeBytes),
      what: encoding ? 'decompressed body' : 'body',
      expected: encoding ? undefined : declared,
      maxHeaderBytes: limits.maxHeaderBytes,
      onHeaderLine: options.onHeaderLine,
    });
    let wire = 0;
    let done = false;
    let ended = false;
    const finish = (error: unknown, value?: Buffer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      body.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      sink.dispose();
      decoding?.dispose();
      if (error !== undefined) {
        body.resume(); // discard the rest unread; the answer closes the connection
        reject(error);
      } else resolve(value as Buffer);
    };
    const guard = (work: () => void) => {
      try {
        work();
      } catch (error) {
        finish(error);
      }
    };
    const { hold } = options;
    const { maxDecompressionRatio } = limits;
    const end = { guard, finish };
    const decoding =
      encoding && new BodyDecoding({ encoding, name, hold, sink, maxDecompressionRatio, body, wire: () => wire, end });

    const onData = (chunk: Buffer) =>
      guard(() => {
        const before = wire;
        wire += chunk.length;
        if (wire > limits.maxBodyBytes) {
          throw new RelayError('too_large', `the body is more than ${limits.maxBodyBytes} bytes`);
        }
        if (decoding) decoding.write(chunk);
        else sink.append(chunk);
        breathe(body, before, wire);
      });
    const onEnd = () =>
      guard(() => {
        ended = true;
        if (decoding) decoding.end();
        else finish(undefined, sink.finish());
      });
    const onError = (error: Error) => finish(error);
    // A request emits 'close' after 'end' too; only a close before the end means the client went away.
    const onClose = () =>
      ended || finish(new RelayError('malformed', `the client closed the connection after ${wire} bytes of the body`));
    const timer = setTimeout(
      () =>
        finish(
          new RelayError('body_timeout', `the body did not arrive within ${limits.timeoutMs} ms (${wire} bytes read)`),
        ),
      limits.timeoutMs,
    );
    body.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/**
 * The socket delivers up to 2 MiB per turn of the event loop; a breath every YIELD_EVERY bytes lets the other
 * requests and timers through.
 */
function breathe(body: Readable, before: number, wire: number): void {
  if (Math.floor(wire / YIELD_EVERY) > Math.floor(before / YIELD_EVERY) && !body.isPaused()) {
    body.pause();
    setImmediate(() => body.resume());
  }
}
