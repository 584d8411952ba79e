// Load for the web benchmark: wrk (1 thread, 10 connections) pinned to core 1 against one target, and the target
// server's own CPU time over the run, read from /proc.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { parseWrkOutput } from '@app/test-kit';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
export const CONNECTIONS = 10;

export interface Target {
  name: string;
  url: string;
  /** The server's process, whose CPU time per request is measured beside its throughput. */
  pid: number | undefined;
  headers?: Record<string, string>;
}

export interface Result {
  rps: number;
  p99Ms: number;
  /** The server's CPU time (user + system) per request answered: what the machine's other load barely changes. */
  cpuMs: number;
  /** The same for the main thread alone (the JavaScript); the rest is V8's and libuv's worker threads. */
  mainMs: number;
  /** Requests answered in the run: rounds are pooled by it (CPU summed ÷ requests summed). */
  requests: number;
}

const TICKS_PER_SECOND = 100;
/** utime + stime of a process, in ms (fields 14 and 15 of /proc/<pid>/stat, after the command's parentheses). */
export function cpuTimeMs(pid: number | undefined, thread?: 'main'): number {
  if (pid === undefined) return Number.NaN;
  const path = thread === 'main' ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`;
  const fields = readFileSync(path, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** Runs wrk without blocking this process, which meanwhile drains the servers' logs and runs the capture server. */
export async function wrk(target: Target, seconds = SECONDS): Promise<Result> {
  const cpuBefore = cpuTimeMs(target.pid);
  const mainBefore = cpuTimeMs(target.pid, 'main');
  const headers = Object.entries(target.headers ?? {}).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
  const child = spawn(
    'taskset',
    ['-c', '1', 'wrk', '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', ...headers, target.url],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  const cpu = cpuTimeMs(target.pid) - cpuBefore;
  const main = cpuTimeMs(target.pid, 'main') - mainBefore;
  if (code !== 0) throw new Error(`wrk exited ${code} for ${target.name}`);
  const { rps, p99Ms, non2xx, requests } = parseWrkOutput(out);
  if (non2xx) throw new Error(`${target.name}: ${non2xx} failed responses`);
  return { rps, p99Ms, cpuMs: cpu / requests, mainMs: main / requests, requests };
}

export const line = (r: Result) =>
  `${r.rps.toFixed(0).padStart(6)} req/s  p99 ${r.p99Ms.toFixed(1).padStart(6)} ms  CPU ${r.cpuMs.toFixed(3)} ms/req (main ${r.mainMs.toFixed(3)})`;
