// Attacker-sized strings (issue 24): request bodies and URLs whose client-chosen strings the relay once kept, copied
// or multiplied, a fixed number of requests a few at a time, and what the relay wrote about them (its longest log
// line, its largest refusal body).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { expect } from 'vitest';
import { attackerAddress, type Body, post } from './hostile.ts';
import type { Labelled } from './relay-under-attack.ts';

/** An envelope whose DSN carries a public key of `keyChars` "<" (distinct per `n`): ≈180 KB once URL-escaped. */
export function longDsnEnvelope(n: number, keyChars = 60_000): string {
  const dsn = `https://${'<'.repeat(keyChars)}${n}@o0.ingest.example/2`;
  return `${JSON.stringify({ dsn })}\n{"type":"event"}\n{}`;
}

/** A Reporting API batch of `count` minimal CSP violations (1000: ≈106 KiB). */
export function cspBatch(count: number): string {
  const report = { type: 'csp-violation', age: 1, url: 'https://shop.example.com/', body: { 'blocked-uri': 'inline' } };
  return JSON.stringify(Array.from({ length: count }, () => report));
}

export interface CountedRequest {
  label: string;
  url: string;
  body: Body;
  headers?: Record<string, string>;
}

/** Sends `total` requests, `workers` at a time, each from its own attacker address; none starts after `windowMs`. */
export async function sendCounted(
  options: { workers: number; total: number; timeoutMs?: number; windowMs?: number },
  next: (n: number) => CountedRequest,
): Promise<Labelled[]> {
  const results: Labelled[] = [];
  let sent = 0;
  const end = Date.now() + (options.windowMs ?? Number.POSITIVE_INFINITY);
  const worker = async (w: number) => {
    while (sent < options.total && Date.now() < end) {
      const request = next(sent++);
      const headers = { ...attackerAddress(w), ...request.headers };
      results.push({ label: request.label, answer: await post(request.url, request.body, headers, options.timeoutMs) });
    }
  };
  await Promise.all(Array.from({ length: options.workers }, (_, w) => worker(w)));
  return results;
}

/** The longest line (bytes) the container wrote to stdout and stderr since `since` (a Unix time in seconds). */
export function longestLogLine(containerId: string, since: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('docker', ['logs', '--since', String(since), containerId], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let longest = 0;
    let open = 2;
    for (const stream of [child.stdout, child.stderr]) {
      const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
      lines.on('line', (line) => {
        longest = Math.max(longest, Buffer.byteLength(line));
      });
      lines.on('close', () => {
        if (--open === 0) resolve(longest);
      });
    }
    child.on('error', reject);
  });
}

/** The largest answer body among the attacks (bytes). */
export const largestBody = (attacks: Labelled[]) => Math.max(0, ...attacks.map(({ answer }) => answer.bodyBytes ?? 0));

/** What a client's text may grow to in the relay's answers and logs (issue 24's bars). */
export const TEXT_BOUNDS = { refusalBodyBytes: 4 * 1024, logLineBytes: 8 * 1024 };

export function expectBoundedText(attacks: Labelled[], longestLine: number): void {
  expect
    .soft(largestBody(attacks), 'largest answer body to an attack (bytes)')
    .toBeLessThanOrEqual(TEXT_BOUNDS.refusalBodyBytes);
  expect
    .soft(longestLine, "longest line of the relay's log during the attack (bytes)")
    .toBeLessThanOrEqual(TEXT_BOUNDS.logLineBytes);
}
