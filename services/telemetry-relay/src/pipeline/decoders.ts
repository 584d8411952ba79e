// The Content-Encodings the tunnel accepts (Relay's list), each with what its decoder holds, so the budget is charged
// before a decoder exists: a brotli or zstd window is read from the stream's first bytes, not assumed.
import zlib from 'node:zlib';

export type Decoder = zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | zlib.ZstdDecompress;

/** Zlib's state, its output chunk and what is in flight besides the window. */
const DECODER_OVERHEAD = 64 * 1024;
/** Largest zstd window accepted: 8 MiB (zstd's own levels 1–19 use at most this for envelope-sized input). */
const ZSTD_WINDOW_LOG_MAX = 23;

export interface Encoding {
  create(): Decoder;
  /** Bytes the decoder may hold, from the stream's first bytes (at least the first 6); undefined: refuse. */
  memory(head: Buffer): number | undefined;
}

const deflateFamily = (create: () => Decoder): Encoding => ({
  create,
  memory: () => 32 * 1024 + DECODER_OVERHEAD,
});

const ENCODINGS: Record<string, Encoding> = {
  gzip: deflateFamily(() => zlib.createGunzip()),
  'x-gzip': deflateFamily(() => zlib.createGunzip()),
  deflate: deflateFamily(() => zlib.createInflate()),
  br: { create: () => zlib.createBrotliDecompress(), memory: (head) => withOverhead(brotliWindow(head)) },
  zstd: {
    create: () => zlib.createZstdDecompress({ params: { [zlib.constants.ZSTD_d_windowLogMax]: ZSTD_WINDOW_LOG_MAX } }),
    memory: (head) => withOverhead(zstdWindow(head)),
  },
};

export const SUPPORTED_ENCODINGS = ['identity', ...Object.keys(ENCODINGS)];

export function encodingFor(name: string): Encoding | undefined {
  return Object.hasOwn(ENCODINGS, name) ? ENCODINGS[name] : undefined;
}

/** How many of a stream's first bytes `memory` wants to see (fewer when the body is shorter). */
export const HEAD_BYTES = 14;

const withOverhead = (window: number | undefined) => (window === undefined ? undefined : window + DECODER_OVERHEAD);

/** RFC 7932 §9.1: WBITS in the first 1–7 bits of the stream (least significant bit first). */
export function brotliWindow(head: Buffer): number | undefined {
  const byte = head[0];
  if (byte === undefined) return undefined;
  let bits: number;
  if ((byte & 1) === 0) bits = 16;
  else if (((byte >> 1) & 7) !== 0) bits = 17 + ((byte >> 1) & 7);
  else {
    const m = (byte >> 4) & 7;
    if (m === 1) return undefined; // "large window" brotli: Node's decoder refuses it anyway
    bits = m === 0 ? 17 : 8 + m;
  }
  return 2 ** bits - 16;
}

/** RFC 8878 §3.1.1.1: the window of a zstd frame, from its header; undefined when it is larger than accepted. */
export function zstdWindow(head: Buffer): number | undefined {
  if (head.length < 6 || head.readUInt32LE(0) !== 0xfd2fb528) return 2 ** ZSTD_WINDOW_LOG_MAX; // the decoder decides
  const descriptor = head[4] as number;
  const singleSegment = (descriptor & 0x20) !== 0;
  if (!singleSegment) {
    const windowDescriptor = head[5] as number;
    const log = 10 + (windowDescriptor >> 3);
    if (log > ZSTD_WINDOW_LOG_MAX) return undefined;
    return 2 ** log + (2 ** log / 8) * (windowDescriptor & 7);
  }
  // A single-segment frame's window is its content size, which the output limit bounds anyway.
  return 2 ** ZSTD_WINDOW_LOG_MAX;
}
