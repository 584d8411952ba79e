// CPU time of compressing one real document, as the service does it (a zlib stream flushed after every chunk it is
// given: one chunk per React flush) against compressing the whole body at once. Same process, same input, alternated
// rounds; CPU time from process.cpuUsage (zlib streams work on the thread pool, which cpuUsage includes).

import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { brotliCompressSync, constants, createBrotliCompress, createGzip, gzipSync } from 'node:zlib';
import { median } from '@app/test-kit';

const BROTLI = { [constants.BROTLI_PARAM_QUALITY]: 4 };

async function streamed(chunks: Buffer[], encoding: 'br' | 'gzip'): Promise<number> {
  const zip =
    encoding === 'br'
      ? createBrotliCompress({ flush: constants.BROTLI_OPERATION_FLUSH, params: BROTLI })
      : createGzip({ level: 6, flush: constants.Z_SYNC_FLUSH });
  let bytes = 0;
  await pipeline(Readable.from(chunks), zip, async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) bytes += chunk.length;
  });
  return bytes;
}

function whole(chunks: Buffer[], encoding: 'br' | 'gzip'): number {
  const body = Buffer.concat(chunks);
  return encoding === 'br'
    ? brotliCompressSync(body, { params: { ...BROTLI, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }).length
    : gzipSync(body, { level: 6 }).length;
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

export interface CompressionCost {
  rawBytes: number;
  rows: Array<{ name: string; cpuMsPerDoc: number; bytes: number }>;
}

/** `chunks`: the document as the server streams it (head + shell, then the tail). */
export async function measureCompressionCost(chunks: Buffer[], iterations = 300, rounds = 5): Promise<CompressionCost> {
  const variants: Array<[string, () => Promise<number> | number]> = [
    ['brotli q4, streamed (flush per chunk)', () => streamed(chunks, 'br')],
    ['brotli q4, whole body at once', () => whole(chunks, 'br')],
    ['gzip 6, streamed (flush per chunk)', () => streamed(chunks, 'gzip')],
    ['gzip 6, whole body at once', () => whole(chunks, 'gzip')],
  ];
  const samples = new Map<string, number[]>();
  const sizes = new Map<string, number>();
  for (let round = 0; round <= rounds; round++) {
    for (const [name, run] of variants) {
      const started = cpuMs();
      let bytes = 0;
      for (let i = 0; i < iterations; i++) bytes = await run();
      const perDoc = (cpuMs() - started) / iterations;
      if (round > 0) samples.set(name, [...(samples.get(name) ?? []), perDoc]); // round 0 warms up
      sizes.set(name, bytes);
    }
  }
  return {
    rawBytes: chunks.reduce((a, c) => a + c.length, 0),
    rows: variants.map(([name]) => ({
      name,
      cpuMsPerDoc: median(samples.get(name) ?? []),
      bytes: sizes.get(name) ?? 0,
    })),
  };
}
