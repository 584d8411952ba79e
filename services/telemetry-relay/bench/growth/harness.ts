// What the growth sweeps share: child processes they own, wrk runs parsed into counts, /proc readings and the
// relay's own gauges. Tools (wrk, taskset) are found as bench/run.ts finds them; the default bench installs them.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseWrkOutput } from '@app/test-kit';
import { passErrors } from '../child-output.ts';

export const benchDir = fileURLToPath(new URL('../', import.meta.url));
export const relayMain = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const children: ChildProcess[] = [];

export function tool(name: string): string {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/usr/bin'])) {
    try {
      execFileSync('test', ['-x', join(dir, name)]);
      return join(dir, name);
    } catch {}
  }
  throw new Error(`the growth bench needs ${name} (npm run bench installs wrk and taskset from Debian)`);
}

/** A child pinned to `cpu`, killed when the bench ends; stderr lines that look like errors are passed on. */
export function launch(cpu: string, args: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(tool('taskset'), ['-c', cpu, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  passErrors(child);
  children.push(child);
  return child;
}

export function killAll(): void {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await (await fetch(url)).arrayBuffer();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
      await sleep(100);
    }
  }
}

export interface WrkCounts {
  /** Answers with a 2xx per second. */
  okPerSecond: number;
  p50: number;
  p99: number;
  /** Non-2xx answers and socket errors (connect, read, write, timeout) over everything attempted. */
  errorShare: number;
}

/** One wrk run: its counts, and what the error share is made of (answers with another status, socket errors). */
export interface WrkRun extends WrkCounts {
  errors: WrkErrors;
}

export interface WrkErrors {
  non2xx: number;
  connect: number;
  read: number;
  write: number;
  timeout: number;
}

/** wrk on CPU 1 posting `bodyFile` to `url` over `connections` for `seconds` (bench/post.lua). */
export function wrk(url: string, bodyFile: string, connections: number, seconds: number): WrkRun {
  // A request still unanswered at half the round counts as an error (a timeout), not as silently missing.
  const timeout = `${Math.max(1, Math.floor(seconds / 2))}s`;
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', timeout, '--latency'];
  const output = execFileSync(
    tool('taskset'),
    ['-c', '1', tool('wrk'), ...args, '-s', join(benchDir, 'post.lua'), url, '--', bodyFile],
    { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  );
  const { requests, seconds: elapsed, non2xx, p50Ms, p99Ms, socketErrors: socket } = parseWrkOutput(output);
  const socketErrors = socket.connect + socket.read + socket.write + socket.timeout;
  return {
    okPerSecond: (requests - non2xx) / elapsed,
    p50: p50Ms,
    p99: p99Ms,
    errorShare: (non2xx + socketErrors) / Math.max(1, requests + socketErrors),
    errors: { non2xx, ...socket },
  };
}

/** Peak resident memory of a process, MiB; `resetPeak` starts a new peak (the kernel's clear_refs 5). */
export function peakRssMib(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** CPU seconds (user + system) a process has used. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in USER_HZ ticks
}

export function resetPeak(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {} // not ours to reset (another user): the peak then covers the process's whole life
}

/** One gauge of the relay's /metrics (Prometheus text), e.g. relay_spool_bytes. */
export async function gauge(origin: string, name: string): Promise<number> {
  // Once more on a reset: a kept-alive socket the relay closed as it was reused (KEEP_ALIVE_TIMEOUT_MS).
  const text = await fetch(`${origin}/metrics`)
    .catch(() => fetch(`${origin}/metrics`))
    .then((response) => response.text());
  const match = new RegExp(`^${name} ([\\d.e+-]+)$`, 'm').exec(text);
  return match ? Number(match[1]) : Number.NaN;
}

/** A counter of the relay's /metrics by its one label's value, e.g. relay_envelopes_rejected_total by reason. */
export async function counters(origin: string, name: string): Promise<Map<string, number>> {
  const text = await freshGet(`${origin}/metrics`);
  const found = new Map<string, number>();
  for (const [, label = '', value] of text.matchAll(new RegExp(`^${name}\\{\\w+="([^"]*)"\\} ([\\d.e+-]+)$`, 'gm'))) {
    found.set(label, Number(value));
  }
  return found;
}

/** A GET on a connection of its own: a pooled keep-alive socket may be the one a loaded server just closed. */
function freshGet(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      response.on('error', reject);
    }).on('error', reject);
  });
}

/** The relay as the image runs it (Dockerfile): 8 MiB semi-spaces, two V8 helper threads, one malloc arena, a fixed mmap threshold. */
export function relayEnv(port: number, dsn: string, spoolDir: string, extra: Record<string, string> = {}) {
  return {
    PORT: String(port),
    HOST: '127.0.0.1',
    ALLOWED_DSNS: dsn,
    // The path the growth benches post to (the default would be the one derived from the DSN).
    TUNNEL_PATH: '/monitoring',
    SPOOL_DIR: spoolDir,
    LOG_LEVEL: 'warn',
    NODE_OPTIONS: '--max-semi-space-size=8 --v8-pool-size=2',
    MALLOC_ARENA_MAX: '1',
    MALLOC_MMAP_THRESHOLD_: '262144',
    ...extra,
  };
}
