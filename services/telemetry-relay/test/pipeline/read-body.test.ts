// Reading a request body within its limits: encodings, size and ratio bounds, timeouts and the memory budget.
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { RelayError } from '../../src/core/errors.ts';
import { createClientShares, createMemoryBudget, type Hold } from '../../src/core/memory/budget.ts';
import { AHEAD_LIMIT } from '../../src/pipeline/body-sink.ts';
import { brotliWindow, zstdWindow } from '../../src/pipeline/decoders.ts';
import { type BodyLimits, RATIO_FLOOR, readBody } from '../../src/pipeline/read-body.ts';

const MiB = 1024 * 1024;
const limits: BodyLimits = {
  maxBodyBytes: 1000,
  maxEnvelopeBytes: 5000,
  timeoutMs: 1000,
  maxDecompressionRatio: 100,
  maxHeaderBytes: 64 * 1024,
};
// Large bodies with the body timeout out of the way: on a loaded machine reading tens of MiB can take over 1 s.
const big: BodyLimits = { ...limits, maxBodyBytes: 1e8, maxEnvelopeBytes: 1e8, timeoutMs: 60_000 };
const body = Buffer.from('{"dsn":"x"}\n{"type":"event"}\n{"message":"hello"}');
const freeHold = () => createClientShares(createMemoryBudget(1024 * MiB), 1024 * MiB).hold('client');
const read = (input: Readable, headers: Record<string, string>, bodyLimits = limits, hold = freeHold()) =>
  readBody(input, headers, bodyLimits, { hold });
const caught = async (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e as RelayError,
  );

describe('readBody: encodings and limits', () => {
  it.each([
    ['identity', (b: Buffer) => b],
    ['gzip', zlib.gzipSync],
    ['x-gzip', zlib.gzipSync],
    ['deflate', zlib.deflateSync],
    ['br', zlib.brotliCompressSync],
    ['zstd', zlib.zstdCompressSync],
  ])('decodes %s', async (encoding, encode) => {
    const out = await read(Readable.from([encode(body)]), { 'content-encoding': encoding });
    expect(out.equals(body)).toBe(true);
  });

  it.each([
    ['a declared length over the limit', { 'content-length': '1001' }, Buffer.alloc(10), 413, /body is 1001 bytes/],
    ['a body over the limit (chunked)', {}, Buffer.alloc(1001, 120), 413, /more than 1000 bytes/],
    [
      'a gzip bomb',
      { 'content-encoding': 'gzip' },
      zlib.gzipSync(Buffer.alloc(100_000)),
      413,
      /decompressed body is more than 5000 bytes/,
    ],
    ['an unknown encoding', { 'content-encoding': 'compress' }, body, 415, /"compress" is not supported/],
    ['corrupt gzip', { 'content-encoding': 'gzip' }, Buffer.from('not gzip at all'), 400, /not valid gzip data/],
  ])('refuses %s', async (_name, headers, input, status, detail) => {
    const error = await caught(read(Readable.from([input]), headers));
    expect(error).toBeInstanceOf(RelayError);
    expect([error?.statusCode, error?.message]).toEqual([status, expect.stringMatching(detail)]);
  });

  it.each([
    ['br', zlib.brotliCompressSync],
    ['gzip', zlib.gzipSync],
    ['zstd', zlib.zstdCompressSync],
  ])('stops a %s bomb of a few bytes at the ratio floor, not at the envelope limit', async (encoding, encode) => {
    const bomb = encode(Buffer.alloc(20 * MiB, 0x20));
    expect(bomb.length).toBeLessThan(30_000);
    const hold = freeHold();
    let peak = 0;
    const error = await caught(
      readBody(
        Readable.from([bomb]),
        { 'content-encoding': encoding },
        { ...big, maxEnvelopeBytes: 20 * MiB },
        {
          hold: {
            get bytes() {
              return hold.bytes;
            },
            grow: (n) => {
              const result = hold.grow(n);
              peak = Math.max(peak, hold.bytes);
              return result;
            },
            shrink: (n) => hold.shrink(n),
            release: () => hold.release(),
          } satisfies Hold,
        },
      ),
    );
    expect([error?.statusCode, error?.message]).toEqual([413, expect.stringMatching(/decompresses to more than 100/)]);
    // What was held: at most the larger of the floor and 100× the wire bytes, plus the decoder's window.
    expect(peak).toBeLessThan(Math.max(RATIO_FLOOR, bomb.length * 100) + 17 * MiB);
  });

  it('does not buffer a 200 MiB gzip bomb whole', async () => {
    const bomb = await promisify(zlib.gzip)(Buffer.alloc(200 * MiB));
    const before = process.memoryUsage().arrayBuffers;
    const error = await caught(read(Readable.from([bomb]), { 'content-encoding': 'gzip' }, big));
    expect(error?.statusCode).toBe(413);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(50 * MiB);
  });

  // A zstd frame header: magic, a descriptor without single-segment flag, then the window descriptor.
  const zstdFrame = (windowLog: number) =>
    Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, (windowLog - 10) << 3]), Buffer.alloc(16)]);

  it('refuses a zstd stream that asks for a window larger than 8 MiB before decoding it', async () => {
    const large = zstdFrame(27);
    const error = await caught(read(Readable.from([large]), { 'content-encoding': 'zstd' }));
    expect([error?.statusCode, error?.message]).toEqual([413, expect.stringMatching(/larger window/)]);
  });

  it.each([
    ['brotli, quality 11 (22-bit window)', zlib.brotliCompressSync(body), 4 * MiB - 16],
    [
      'brotli, 16-bit window',
      zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_LGWIN]: 16 } }),
      64 * 1024 - 16,
    ],
    [
      'brotli, 24-bit window',
      zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_LGWIN]: 24 } }),
      16 * MiB - 16,
    ],
  ])('reads the decoder window a %s stream declares', (_name, stream, window) => {
    expect(brotliWindow(stream)).toBe(window);
  });

  it.each([
    [20, MiB],
    [23, 8 * MiB],
    [24, undefined],
  ])('reads a zstd frame window of 2^%i from its header', (log, window) => {
    expect(zstdWindow(zstdFrame(log))).toBe(window);
  });

  it.each([
    ['with a Content-Length', true],
    ['chunked', false],
  ])('assembles a large body from many chunks (%s)', async (_name, withLength) => {
    const large = Buffer.from(Array.from({ length: 3 * MiB }, (_, i) => i % 251));
    const chunks = Array.from({ length: large.length / 65536 }, (_, i) => large.subarray(i * 65536, (i + 1) * 65536));
    const headers: Record<string, string> = withLength ? { 'content-length': String(large.length) } : {};
    const out = await read(Readable.from(chunks), headers, big);
    expect(out.equals(large)).toBe(true);
  });

  it('times out a body that trickles (408)', async () => {
    const slow = new Readable({ read() {} });
    slow.push(Buffer.from('{"dsn"'));
    const error = await caught(read(slow, {}, { ...limits, timeoutMs: 100 }));
    expect([error?.statusCode, error?.code]).toEqual([408, 'body_timeout']);
  });
});

describe('readBody: the memory budget', () => {
  it('charges the bytes received, not the declared length, and the hold gives everything back', async () => {
    const budget = createMemoryBudget(64 * MiB);
    const hold = createClientShares(budget, 64 * MiB).hold('a');
    const slow = new Readable({ read() {} });
    const pending = caught(
      readBody(slow, { 'content-length': String(40 * MiB) }, { ...big, timeoutMs: 200 }, { hold }),
    );
    slow.push(Buffer.alloc(300 * 1024));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(budget.used).toBe(300 * 1024);
    expect((await pending)?.statusCode).toBe(408);
    hold.release();
    expect(budget.used).toBe(0);
  });

  it.each([
    ['a small body of known length', { 'content-length': '1000' }],
    ['a body of unknown length', {}],
  ])(
    'answers 503 with Retry-After when the process budget is short, 429 when the client holds its share (%s)',
    async (_name, headers: Record<string, string>) => {
      const budget = createMemoryBudget(2 * MiB);
      const shares = createClientShares(budget, MiB);
      const greedy = shares.hold('greedy');
      expect(greedy.grow(MiB)).toBeUndefined();
      const own = await caught(read(Readable.from([Buffer.alloc(1000)]), headers, big, shares.hold('greedy')));
      expect([own?.statusCode, own?.code, own?.headers['retry-after']]).toEqual([429, 'client_overloaded', '5']);

      const other = shares.hold('other');
      expect(other.grow(MiB - 10)).toBeUndefined();
      const full = await caught(read(Readable.from([Buffer.alloc(1000)]), headers, big, shares.hold('third')));
      expect([full?.statusCode, full?.code, full?.headers['retry-after']]).toEqual([503, 'overloaded', '5']);
      expect(full?.headers['x-sentry-rate-limits']).toBe('5::key:relay_overloaded');
    },
  );

  it('charges a decoder its window while it decodes, and gives it back when done', async () => {
    const budget = createMemoryBudget(64 * MiB);
    const hold = createClientShares(budget, 64 * MiB).hold('a');
    const out = await readBody(Readable.from([zlib.brotliCompressSync(body)]), { 'content-encoding': 'br' }, big, {
      hold,
    });
    expect(out.equals(body)).toBe(true);
    expect(hold.bytes).toBe(body.length);
  });

  it('allocates declared lengths ahead of their bytes only within AHEAD_LIMIT, and reads every body whole', async () => {
    const declared = 40 * MiB; // two of these exceed the 64 MiB limit
    const first = new Readable({ read() {} });
    const second = new Readable({ read() {} });
    const chunk = Buffer.alloc(300 * 1024, 1);
    // Counted, not sampled: every buffer the reads allocate until each has allocated its first.
    const allocated: number[] = [];
    const spies = (['alloc', 'allocUnsafe', 'allocUnsafeSlow'] as const).map((name) => {
      const original = Buffer[name] as (...args: unknown[]) => Buffer;
      return vi.spyOn(Buffer, name).mockImplementation(((...args: unknown[]) => {
        allocated.push(args[0] as number);
        return original.apply(Buffer, args);
      }) as never);
    });
    const reads = [first, second].map((input) => read(input, { 'content-length': String(declared) }, big));
    for (const input of [first, second]) input.push(chunk);
    await vi.waitFor(() => expect(allocated.length).toBeGreaterThanOrEqual(2), { timeout: 10_000 });
    for (const spy of spies) spy.mockRestore();
    expect(allocated.reduce((sum, size) => sum + size, 0)).toBeLessThan(AHEAD_LIMIT + 4 * MiB);
    for (const input of [first, second]) {
      for (let sent = 300 * 1024; sent < declared; sent += MiB)
        input.push(Buffer.alloc(Math.min(MiB, declared - sent), 2));
      input.push(null);
    }
    const bodies = await Promise.all(reads);
    expect(bodies.map((b) => [b.length, b[0], b.at(-1)])).toEqual([
      [declared, 1, 2],
      [declared, 1, 2],
    ]);
  });
});

describe('readBody: the envelope header line first', () => {
  it('hands the header line over as soon as it arrives, and a refusal stops reading the rest', async () => {
    const input = new Readable({ read() {} });
    const lines: string[] = [];
    const pending = caught(
      readBody(input, {}, big, {
        hold: freeHold(),
        onHeaderLine(line) {
          lines.push(line.toString());
          throw new RelayError('dsn_not_allowed', 'not this one');
        },
      }),
    );
    input.push(Buffer.from('{"dsn":"https://k@example.com/1"}\n{"type":"ev'));
    const error = await pending; // resolves without the rest of the body ever being pushed
    expect(lines).toEqual(['{"dsn":"https://k@example.com/1"}']);
    expect(error?.code).toBe('dsn_not_allowed');
  });

  it('hands the header line of a small body of known length over at its end, and a refusal rejects it', async () => {
    const text = '{"dsn":"https://k@example.com/1"}\n{"type":"event"}\n{}';
    const lines: string[] = [];
    const error = await caught(
      readBody(Readable.from([Buffer.from(text)]), { 'content-length': String(text.length) }, big, {
        hold: freeHold(),
        onHeaderLine(line) {
          lines.push(line.toString());
          throw new RelayError('dsn_not_allowed', 'not this one');
        },
      }),
    );
    expect([lines, error?.code]).toEqual([['{"dsn":"https://k@example.com/1"}'], 'dsn_not_allowed']);
  });

  it.each([
    ['split over chunks', ['{"dsn":', '"x"}', '\n{"type":"event"}\n{}'].map((c) => Buffer.from(c)), '{"dsn":"x"}'],
    ['a header-only envelope', [Buffer.from('{"dsn":"x"}')], '{"dsn":"x"}'],
    ['through brotli', [zlib.brotliCompressSync('{"dsn":"y"}\n{"type":"event"}\n{}')], '{"dsn":"y"}'],
  ])('finds the header line %s', async (name, chunks, expected) => {
    const lines: string[] = [];
    await readBody(Readable.from(chunks), name === 'through brotli' ? { 'content-encoding': 'br' } : {}, big, {
      hold: freeHold(),
      onHeaderLine: (line) => lines.push(line.toString()),
    });
    expect(lines).toEqual([expected]);
  });

  it('refuses a header line longer than the limit before the body ends (413)', async () => {
    const input = new Readable({ read() {} });
    const pending = caught(
      readBody(input, {}, { ...big, maxHeaderBytes: 1024 }, { hold: freeHold(), onHeaderLine: () => {} }),
    );
    input.push(Buffer.from(`{"dsn":"${'x'.repeat(2000)}`));
    const error = await pending;
    expect([error?.statusCode, error?.message]).toEqual([
      413,
      expect.stringMatching(/header line .* longer than 1024/),
    ]);
  });
});
