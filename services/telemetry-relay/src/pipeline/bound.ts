import { type Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { RelayError } from './errors.ts';

/**
 * Stage 1: read the request body as bytes, bounded before and after decompression and in time, so a huge body, a
 * decompression bomb or a client that trickles bytes is refused (413/408) without ever being held whole.
 */

export interface BodyLimits {
  /** Most bytes on the wire (compressed, if it is). */
  maxBodyBytes: number;
  /** Most bytes after decompression: the envelope limit. */
  maxEnvelopeBytes: number;
  /** The whole body must arrive within this time. */
  timeoutMs: number;
}

type Decoder = () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | zlib.ZstdDecompress;

const DECODERS: Record<string, Decoder> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
  // Node 24's zlib has zstd (Relay's own upstream encoding).
  zstd: () => zlib.createZstdDecompress(),
};

export const SUPPORTED_ENCODINGS = ['identity', ...Object.keys(DECODERS)];

export async function readBody(
  body: Readable,
  headers: { 'content-encoding'?: string | undefined; 'content-length'?: string | undefined },
  limits: BodyLimits,
): Promise<Buffer> {
  const encoding = (headers['content-encoding'] ?? 'identity').trim().toLowerCase() || 'identity';
  const decoder = encoding === 'identity' ? undefined : DECODERS[encoding];
  if (encoding !== 'identity' && !decoder) {
    body.resume();
    throw new RelayError(
      'unsupported_encoding',
      `Content-Encoding ${JSON.stringify(encoding)} is not supported (use one of ${SUPPORTED_ENCODINGS.join(', ')})`,
    );
  }
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxBodyBytes) {
    body.resume();
    throw new RelayError('too_large', `the body is ${declared} bytes; at most ${limits.maxBodyBytes} are accepted`);
  }

  if (!decoder) return readPlain(body, declared, limits);
  return readDecoded(body, decoder, encoding, limits);
}

/** Beyond this many bytes, chunks are copied into one growing buffer instead of concatenated at the end. */
const GROW_FROM = 256 * 1024;
const YIELD_EVERY = 512 * 1024;
/** Bytes that bodies in flight in this process may reserve ahead of arriving (see readPlain). */
export const RESERVE_BUDGET = 64 * 1024 * 1024;
let reserved = 0;

/**
 * The common case (browsers never compress): chunks collected straight from the request with one timer, no
 * stream pipeline (whose per-request AbortSignal and listeners cost more than the rest of the stage).
 *
 * A large body is copied chunk by chunk into one buffer as bytes arrive, so no single tick copies the whole body
 * at the end. With a Content-Length that buffer is allocated at the declared size once, so no tick copies what
 * earlier ticks already copied (a doubling buffer's last growth copied half the body at once: 12–26 ms for a 10 MiB
 * envelope here). Such an allocation is mapped, not touched: resident memory still follows what was received. But
 * V8 counts it as external memory from the start, so what bodies may reserve ahead of their bytes is bounded per
 * process (RESERVE_BUDGET): clients that declare large bodies and then stall cannot make the process look (and
 * collect garbage as if it were) gigabytes large. Past the budget, and without a Content-Length (chunked), the
 * buffer doubles as bytes arrive.
 */
function readPlain(body: Readable, declared: number, limits: BodyLimits): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const max = Math.min(limits.maxBodyBytes, limits.maxEnvelopeBytes);
    const cap = Number.isSafeInteger(declared) && declared > 0 ? Math.min(declared, max) : max;
    let chunks: Buffer[] | undefined = [];
    let target: Buffer | undefined;
    let size = 0;
    let reservation = 0;
    const finish = (error: Error | undefined, value?: Buffer) => {
      clearTimeout(timer);
      reserved -= reservation;
      reservation = 0;
      body.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (error) {
        body.resume(); // discard the rest; the answer closes the connection
        reject(error);
      } else resolve(value as Buffer);
    };
    const grow = (needed: number) => {
      const preallocate = target === undefined && cap === declared && reserved + cap <= RESERVE_BUDGET;
      if (preallocate) {
        reservation = cap;
        reserved += cap;
      }
      const next = Buffer.allocUnsafeSlow(
        preallocate ? cap : Math.max(needed, Math.min(cap, 2 * (target?.length ?? GROW_FROM))),
      );
      if (target) target.copy(next, 0, 0, size);
      else if (chunks) Buffer.concat(chunks, size).copy(next);
      chunks = undefined;
      target = next;
    };
    const onData = (chunk: Buffer) => {
      const needed = size + chunk.length;
      if (needed > max) {
        finish(new RelayError('too_large', `the body is more than ${max} bytes`));
        return;
      }
      if (chunks && needed <= GROW_FROM) chunks.push(chunk);
      else {
        if (!target || needed > target.length) grow(needed);
        chunk.copy(target as Buffer, size);
        // The socket delivers up to 2 MiB (32 reads) per turn of the event loop; take a breath every YIELD_EVERY
        // bytes so a large body cannot hold up the other requests and timers.
        if (Math.floor(needed / YIELD_EVERY) > Math.floor(size / YIELD_EVERY)) {
          body.pause();
          setImmediate(() => body.resume());
        }
      }
      size = needed;
    };
    const onEnd = () => {
      if (target) finish(undefined, target.subarray(0, size));
      else if (chunks) finish(undefined, chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => finish(error);
    const onClose = () =>
      finish(new RelayError('malformed', `the client closed the connection after ${size} bytes of the body`));
    const timer = setTimeout(
      () =>
        finish(
          new RelayError('body_timeout', `the body did not arrive within ${limits.timeoutMs} ms (${size} bytes read)`),
        ),
      limits.timeoutMs,
    );
    body.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** A compressed body: decompressed as it streams in, bounded on both sides, never held whole before the limit. */
async function readDecoded(body: Readable, decoder: Decoder, encoding: string, limits: BodyLimits): Promise<Buffer> {
  let wireBytes = 0;
  const chunks: Buffer[] = [];
  let size = 0;
  const collect = new Writable({
    write(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > limits.maxEnvelopeBytes) {
        done(new RelayError('too_large', `the body decompresses to more than ${limits.maxEnvelopeBytes} bytes`));
        return;
      }
      chunks.push(chunk);
      done();
    },
  });
  const countWire = (chunk: Buffer) => {
    wireBytes += chunk.length;
    if (wireBytes > limits.maxBodyBytes) {
      body.destroy(new RelayError('too_large', `the body is more than ${limits.maxBodyBytes} bytes`));
    }
  };
  body.on('data', countWire);

  const signal = AbortSignal.timeout(limits.timeoutMs);
  try {
    await pipeline(body, decoder(), collect, { signal });
  } catch (error) {
    if (error instanceof RelayError) throw error;
    if (signal.aborted) {
      throw new RelayError(
        'body_timeout',
        `the body did not arrive within ${limits.timeoutMs} ms (${wireBytes} bytes read)`,
      );
    }
    throw new RelayError('malformed', `the body is not valid ${encoding} data (${(error as Error).message})`);
  } finally {
    body.off('data', countWire);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
}
