// Reading the live generator's LATENCY_FILE (bench/fixed-rate.ts: `<epoch ms scheduled> <latency ms> <send lag ms>`
// per answer): a p99 over a span, the p99 of each window of it (quiet latency is their median, their spread shown),
// and the share of sends the generator itself made late, which voids a span's latency rather than counting as it.
import { readFileSync } from 'node:fs';
import { quantile } from '../open-loop.ts';

export interface LiveSample {
  at: number;
  ms: number;
  lag: number;
}

/** A send later than this after its schedule is the generator's fault (bench/open-loop.ts's default). */
export const LATE_MS = 5;

export function readLive(file: string): LiveSample[] {
  return readFileSync(file, { encoding: 'utf8', flag: 'a+' })
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      const [at = Number.NaN, ms = Number.NaN, lag = 0] = line.split(' ').map(Number);
      return { at, ms, lag };
    });
}

const p99Of = (values: number[]) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.99,
  );

export interface LiveSpan {
  /** The p99 over the whole span. */
  p99: number;
  /** The p99 of each window of the span, in order; median, lowest and highest of them. */
  windows: number[];
  median: number;
  min: number;
  max: number;
  /** The p99 counted from when each request actually left: the relay's part when the generator ran late. */
  sentP99: number;
  /** Share of the span's sends that left more than LATE_MS after their schedule. */
  lateShare: number;
  count: number;
}

/** Latency of the answers scheduled in [from, to), in windows of `windowMs` (a last partial window under half is dropped). */
export function liveSpan(samples: readonly LiveSample[], from: number, to: number, windowMs = 2000): LiveSpan {
  const inSpan = samples.filter((s) => s.at >= from && s.at < to);
  const windows: number[] = [];
  for (let start = from; start + windowMs / 2 <= to; start += windowMs) {
    const ms = inSpan.filter((s) => s.at >= start && s.at < start + windowMs).map((s) => s.ms);
    if (ms.length > 0) windows.push(p99Of(ms));
  }
  const sorted = [...windows].sort((a, b) => a - b);
  return {
    p99: p99Of(inSpan.map((s) => s.ms)),
    sentP99: p99Of(inSpan.map((s) => s.ms - s.lag)),
    windows,
    median: sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN,
    min: sorted[0] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
    lateShare: inSpan.filter((s) => s.lag > LATE_MS).length / Math.max(1, inSpan.length),
    count: inSpan.length,
  };
}

/** "p99 median (lowest–highest of n windows), x % sent late" for a log line. */
export function describeSpan(span: LiveSpan): string {
  return `p99 ${span.median.toFixed(1)} ms median of ${span.windows.length} windows (${span.min.toFixed(1)}–${span.max.toFixed(1)}), whole span ${span.p99.toFixed(1)} (${span.sentP99.toFixed(1)} from the send); ${(span.lateShare * 100).toFixed(2)} % sent late`;
}

/** The longest event-loop block (over 5 ms) that ended between `from` and `to`, from bench/loop-probe.ts's file. */
export function longestBlock(file: string, from: number, to: number): number {
  const blocks = readLive(file)
    .filter((s) => s.at >= from && s.at <= to)
    .map((s) => s.ms);
  return Math.max(0, ...blocks);
}
