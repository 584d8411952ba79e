// The request body as bytes, bounded on the wire, after decompression (at most maxDecompressionRatio
// times the bytes received, beyond RATIO_FLOOR: a 40-byte bomb stops within a megabyte), in time and by the memory
// budget; the envelope header line is handed over as soon as it arrives (body-sink.ts).
import type { Readable } from 'node:stream';
import { quote, RelayError } from '../core/errors.ts';
import type { Hold } from '../core/memory/budget.ts';
import { charge, createBodySink } from './body-sink.ts';
import { type Decoder, encodingFor, HEAD_BYTES, SUPPORTED_ENCODINGS } from './decoders.ts';
import { readSmallBody, SMALL_BODY_BYTES } from './small-body.ts';

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

/** Any body may decompress to this much, whatever its size. */
export const RATIO_FLOOR = 1024 * 1024;
const YIELD_EVERY = 512 * 1024;

const refuse = (...args: ConstructorParameters<typeof RelayError>) => Promise.reject(new RelayError(...args));

export function readBody(
  body: Readable,
  headers: { 'content-encoding'?: string | undefined; 'content-length'?: string | undefined },
  limits: BodyLimits,
  options: BodyReadOptions,
): Promise<Buffer> {
  const name = (headers['content-encoding'] ?? 'identity').trim().toLowerCase() || 'identity';
  const encoding = name === 'identity' ? undefined : encodingFor(name);
  if (name !== 'identity' && !encoding) {
    body.resume();
    return refuse(
      'unsupported_encoding',
      `Content-Encoding ${quote(name)} is not supported (use one of ${SUPPORTED_ENCODINGS.join(', ')})`,
    );
  }
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxBodyBytes) {
    body.resume();
    return refuse('too_large', `the body is ${declared} bytes; at most ${limits.maxBodyBytes} are accepted`);
  }

  if (!encoding && Number.isSafeInteger(declared) && declared > 0 && declared <= SMALL_BODY_BYTES) {
    return readSmallBody(body, limits.timeoutMs, options);
  }

  return new Promise((resolve, reject) => {
    const { hold } = options;
    const sink = createBodySink({
      hold,
      max: encoding ? limits.maxEnvelopeBytes : Math.min(limits.maxBodyBytes, limits.maxEnvelopeBytes),
      what: encoding ? 'decompressed body' : 'body',
      expected: !encoding && Number.isSafeInteger(declared) && declared > 0 ? declared : undefined,
      maxHeaderBytes: limits.maxHeaderBytes,
      onHeaderLine: options.onHeaderLine,
    });
    let wire = 0;
    let decoder: Decoder | undefined;
    let decoderMemory = 0;
    let head: Buffer[] | undefined = encoding ? [] : undefined;
    let done = false;
    let ended = false;

    const finish = (error: unknown, value?: Buffer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      body.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      sink.dispose();
      if (decoder) {
        decoder.removeAllListeners().on('error', () => {});
        decoder.destroy();
        hold.shrink(decoderMemory);
      }
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

    const onDecoded = (chunk: Buffer) =>
      guard(() => {
        const allowed = Math.max(RATIO_FLOOR, wire * limits.maxDecompressionRatio);
        if (sink.size + chunk.length > allowed) {
          throw new RelayError(
            'too_large',
            `the body decompresses to more than ${limits.maxDecompressionRatio} times its ${wire} bytes (at most ${allowed} bytes here)`,
          );
        }
        sink.append(chunk);
      });
    const startDecoder = (first: Buffer) => {
      const memory = encoding?.memory(first);
      if (memory === undefined) {
        throw new RelayError('too_large', `the ${name} stream asks for a larger window than the relay decodes`);
      }
      charge(hold, memory);
      decoderMemory = memory;
      decoder = (encoding as NonNullable<typeof encoding>).create();
      decoder.on('data', onDecoded);
      decoder.on('end', () => guard(() => finish(undefined, sink.finish())));
      decoder.on('error', (error: Error) =>
        finish(new RelayError('malformed', `the body is not valid ${name} data (${error.message})`)),
      );
    };
    const feed = (chunk: Buffer) => {
      if (!decoder) {
        (head as Buffer[]).push(chunk);
        const buffered = Buffer.concat(head as Buffer[]);
        if (buffered.length < HEAD_BYTES) return;
        head = undefined;
        startDecoder(buffered);
        chunk = buffered;
      }
      if (!(decoder as Decoder).write(chunk)) {
        body.pause();
        (decoder as Decoder).once('drain', () => body.resume());
      }
    };

    const onData = (chunk: Buffer) =>
      guard(() => {
        const before = wire;
        wire += chunk.length;
        if (wire > limits.maxBodyBytes) {
          throw new RelayError('too_large', `the body is more than ${limits.maxBodyBytes} bytes`);
        }
        if (encoding) feed(chunk);
        else sink.append(chunk);
        // The socket delivers up to 2 MiB per turn of the event loop; a breath every YIELD_EVERY bytes lets the
        // other requests and timers through.
        if (Math.floor(wire / YIELD_EVERY) > Math.floor(before / YIELD_EVERY) && !body.isPaused()) {
          body.pause();
          setImmediate(() => body.resume());
        }
      });
    const onEnd = () =>
      guard(() => {
        ended = true;
        if (!encoding) {
          finish(undefined, sink.finish());
          return;
        }
        if (!decoder) {
          const buffered = Buffer.concat(head ?? []);
          head = undefined;
          if (buffered.length === 0) {
            finish(undefined, sink.finish());
            return;
          }
          startDecoder(buffered);
          (decoder as unknown as Decoder).write(buffered);
        }
        (decoder as unknown as Decoder).end();
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
