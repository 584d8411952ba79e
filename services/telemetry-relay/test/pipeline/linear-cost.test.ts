// Matching cost linear in the input (issue 37, decision 045): every pattern and scan in linear-registry.ts gets its
// worst inputs at 64 KiB, 256 KiB and 1 MiB, and the time per byte must not grow with the size. Ratios within one
// run, each the best of a few, each sample the same number of bytes (more calls on the smaller text): robust on a
// loaded machine, where absolute times are not. A quadratic pattern is caught at 256 KiB before 1 MiB takes minutes.
import { describe, expect, it } from 'vitest';
import { createItem } from '../../src/envelope/serialize.ts';
import { createInboundFilters } from '../../src/pipeline/inbound-filters/stage.ts';
import { createScrubber } from '../../src/pipeline/scrub.ts';
import { ALL_FILTERS, ALL_SCRUB, COST_ENTRIES, missing, STAGE_WORST } from './linear-registry.ts';

const KIB = 1024;
const MIB = 1024 * KIB;
const SIZES = [64 * KIB, 256 * KIB, 1024 * KIB] as const;
/** Per-byte time at 1 MiB over that at 64 KiB (a quadratic pattern gives 16). */
const MAX_GROWTH = 3;
/**
 * Below this per MiB a growth is the memory hierarchy's (1 MiB leaves the caches that 64 KiB read over and over stays
 * in: up to 6× for a 3 ms/MiB scan), and harmless: a pattern quadratic yet this fast at 1 MiB cannot hold the loop.
 */
const NEGLIGIBLE_MS = 25;
/** One call on 64 KiB taking over a second (16 s a MiB) is no linear matcher of ours: fail at once. */
const FIRST_CALL_MAX_MS_PER_MIB = 16_000;
/** Each sample reads at least this many bytes (several calls on the smaller texts). */
const SAMPLE_BYTES = 512 * KIB;

/** The best of `runs` timings of `run` on each of `texts`. */
function best(run: (text: string) => unknown, texts: readonly string[], runs: number): number {
  let min = Number.POSITIVE_INFINITY;
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    for (const text of texts) run(text);
    min = Math.min(min, performance.now() - start);
  }
  return min;
}

/** A flat copy (no rope for the first regex to flatten inside the timing). */
const flat = (text: string) => Buffer.from(text, 'utf8').toString('utf8');

/**
 * Milliseconds per MiB at each size, stopping at the first whose time per byte grew too much; measured again once
 * before the verdict, so that one collection or a neighbour's burst on the machine is not taken for growth.
 */
function growth(
  run: (text: string) => unknown,
  worst: (n: number) => string,
  sizes: readonly number[] = SIZES,
  runs = 3,
): { times: number[]; grew: boolean } {
  const measure = () => {
    const times: number[] = [];
    for (const size of sizes) {
      // Distinct texts, so that 64 KiB read eight times is not served from the caches 1 MiB cannot fit in.
      const calls = Math.max(1, Math.round(SAMPLE_BYTES / size));
      const texts = Array.from({ length: calls }, () => flat(worst(size)));
      const text = texts[0] as string;
      // One call first: it warms up (compiles the regex, flattens the string) and stops a pattern that is already
      // hopeless (a quadratic one takes seconds at 64 KiB and minutes at 1 MiB) before the repeated samples.
      const start = performance.now();
      run(text);
      const once = ((performance.now() - start) * MIB) / size;
      if (size === sizes[0] && once > FIRST_CALL_MAX_MS_PER_MIB) return { times: [once], grew: true };
      if (size !== sizes[0] && once >= NEGLIGIBLE_MS && once > 10 * MAX_GROWTH * (times[0] as number)) {
        return { times: [...times, once], grew: true };
      }
      times.push((best(run, texts, runs) * MIB) / (calls * size));
      const last = times[times.length - 1] as number;
      if (last >= NEGLIGIBLE_MS && last > MAX_GROWTH * (times[0] as number)) return { times, grew: true };
    }
    return { times, grew: false };
  };
  const first = measure();
  return first.grew && first.times.length > 1 ? measure() : first;
}

const describeTimes = (times: number[], sizes: readonly number[] = SIZES) =>
  times.map((t, i) => `${(sizes[i] as number) / KIB} KiB: ${t.toFixed(1)} ms/MiB`).join(', ');
/** The stages parse the event, which costs more than the patterns: 64 KiB against 1 MiB only. */
const STAGE_SIZES = [64 * KIB, 1024 * KIB];

describe('matching cost is linear in the input', () => {
  it('every scrub pattern, inbound filter and ignore rule has worst inputs', () => {
    expect(missing).toEqual([]);
  });

  it.each(COST_ENTRIES.map((entry) => [entry.name, entry] as const))('%s', (_name, entry) => {
    const { times, grew } = growth(entry.run, entry.worst);
    expect(grew, describeTimes(times)).toBe(false);
  });

  it.each(STAGE_WORST.scrub.map((w) => [w.name, w] as const))(
    'the scrub stage on a 1 MiB event of %s',
    (_name, { worst }) => {
      const scrub = createScrubber(ALL_SCRUB, { maxEventItemBytes: 1 << 24, maxEnvelopeBytes: 1 << 25 });
      if (!scrub) throw new Error('scrubs');
      const run = (text: string) => {
        const half = text.slice(0, text.length >> 1);
        const payload = Buffer.from(
          JSON.stringify({ logentry: { formatted: half }, extra: { value: text.slice(half.length) } }),
        );
        return scrub([createItem({ type: 'event' }, payload)], payload.length);
      };
      const { times, grew } = growth(run, worst, STAGE_SIZES, 3);
      expect(grew, describeTimes(times, STAGE_SIZES)).toBe(false);
    },
  );

  it.each(STAGE_WORST.filters.map((w) => [w.name, w] as const))(
    'the inbound filters on a 1 MiB event of %s',
    (_name, { place, worst }) => {
      const filter = createInboundFilters(ALL_FILTERS);
      const run = (text: string) => {
        const item = place(text);
        const type = 'csp-report' in item ? 'raw_security' : item.type === 'transaction' ? 'transaction' : 'event';
        return filter([createItem({ type }, Buffer.from(JSON.stringify(item)))]);
      };
      const { times, grew } = growth(run, worst, STAGE_SIZES, 3);
      expect(grew, describeTimes(times, STAGE_SIZES)).toBe(false);
    },
  );
});
