// Load for the growth bench: wrk (1 thread) pinned to core 1 with a chosen number of connections, where a 503 is an
// answer to count, not a failure (load shedding's refusals are part of the result). Beside it, the server's CPU time
// (from /proc) and its resident memory, sampled while the load runs.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { parseWrkOutput, wrkDurationMs } from '@app/test-kit';
import { cpuTimeMs } from './wrk.ts';

export interface LoadStep {
  url: string;
  /** The server's process, for its CPU time and RSS. */
  pid: number | undefined;
  connections: number;
  seconds: number;
}

// Fields with their units, alike in shape to src/server/config.ts's (`duplicates` pairs them): records, no logic.
export interface LoadResult {
  /** Answers per second, refusals included. */
  rps: number;
  /** 2xx/3xx answers per second: the documents served. */
  okPerSecond: number;
  /** Share of the answers that were not 2xx/3xx (503 under shedding). */
  refusedShare: number;
  p50Ms: number;
  /** wrk's percentiles are corrected for coordinated omission: each answer slower than twice the mean interval between
   * a connection's answers adds samples below it, so a few slow answers can make the p99 (docs/benchmarks.md). */
  p99Ms: number;
  /** The slowest answer wrk measured (a real one, not a correction). */
  maxMs: number;
  /** Requests wrk gave up on after its timeout (not in the latencies: the tail a client saw beyond them). */
  timeouts: number;
  /** The server's CPU time per answer, and per document served (all its CPU over the documents). */
  cpuMsPerAnswer: number;
  cpuMsPerDocument: number;
  /** Highest resident set size sampled while the load ran. */
  peakRssBytes: number;
}

const TIMEOUT_SECONDS = 10;
const RSS_SAMPLE_MS = 100;

/** VmRSS of a process in bytes (0 once it is gone). */
export function rssBytes(pid: number | undefined): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Number(kb ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** Reads what wrk printed (with --latency) into the figures above, less the server's. */
export function parseWrk(out: string) {
  const { requests, seconds, non2xx: refused, p50Ms, p99Ms, socketErrors } = parseWrkOutput(out);
  return {
    requests,
    refused,
    rps: requests / seconds,
    okPerSecond: (requests - refused) / seconds,
    p50Ms,
    p99Ms,
    maxMs: wrkDurationMs(/Latency\s+\S+\s+\S+\s+(\S+)/.exec(out)?.[1]),
    timeouts: socketErrors.timeout,
  };
}

export async function runLoad(step: LoadStep): Promise<LoadResult> {
  const cpuBefore = cpuTimeMs(step.pid);
  let peakRssBytes = rssBytes(step.pid);
  const sampler = setInterval(() => {
    peakRssBytes = Math.max(peakRssBytes, rssBytes(step.pid));
  }, RSS_SAMPLE_MS);
  const args = ['-t1', `-c${step.connections}`, `-d${step.seconds}s`, `--timeout`, `${TIMEOUT_SECONDS}s`, '--latency'];
  const child = spawn('taskset', ['-c', '1', 'wrk', ...args, step.url], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  clearInterval(sampler);
  const cpu = cpuTimeMs(step.pid) - cpuBefore;
  if (code !== 0) throw new Error(`wrk exited ${code} for ${step.url}`);
  const parsed = parseWrk(out);
  if (!(parsed.requests > 0)) throw new Error(`wrk answered nothing for ${step.url}:\n${out}`);
  return {
    rps: parsed.rps,
    okPerSecond: parsed.okPerSecond,
    refusedShare: parsed.refused / parsed.requests,
    p50Ms: parsed.p50Ms,
    p99Ms: parsed.p99Ms,
    maxMs: parsed.maxMs,
    timeouts: parsed.timeouts,
    cpuMsPerAnswer: cpu / parsed.requests,
    cpuMsPerDocument: cpu / (parsed.requests - parsed.refused),
    peakRssBytes,
  };
}
