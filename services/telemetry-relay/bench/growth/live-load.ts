// The backlog bench's clients: the fill (posts a backlog while upstream is down) and the live load, bench/fixed-rate.ts
// on CPU 1 in a process of its own, alone for a quiet figure or beside a drain.
import { join } from 'node:path';
import { Pool } from 'undici';
import type { OpenLoopResult } from '../open-loop.ts';
import { benchDir, cpuSeconds, gauge, launch, sleep } from './harness.ts';
import { liveSpan, readLive } from './live-latency.ts';

const POLL_MS = 250;

/** Posts `count` copies of `body`, `concurrency` at a time; returns how many were not answered 200. */
export async function fill(url: string, body: Buffer, count: number, concurrency: number): Promise<number> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: concurrency });
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      try {
        const response = await pool.request({ method: 'POST', path: target.pathname, body });
        await response.body.dump();
        if (response.statusCode !== 200) failed++;
      } catch {
        failed++; // a reset on a loaded machine: counted, not the end of the run
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await pool.close();
  return failed;
}

/** fixed-rate.ts on CPU 1 for `seconds`; resolves with its summary once it has ended. */
export function liveLoad(url: string, bodyFile: string, rate: number, seconds: number, latencyFile: string) {
  const args = [process.execPath, join(benchDir, 'fixed-rate.ts'), url, bodyFile, String(rate), String(seconds)];
  const child = launch('1', args, { LATENCY_FILE: latencyFile });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise<Partial<OpenLoopResult>>((resolve) =>
    child.once('exit', () => resolve(JSON.parse(output.trim().split('\n').at(-1) || '{}'))),
  );
}

const WARM_UP_MS = 1000;

/** Live load alone for three of the bench's rounds (at least 12 s), its latency after the warm-up, the
 * spool's peak and the relay's CPU. */
export async function quietSpan(
  url: string,
  bodyFile: string,
  rate: number,
  o: { work: string; seconds: number },
  name: string,
  relay?: { origin: string; pid: number },
) {
  const file = join(o.work, `latency-${name}.txt`);
  const seconds = Math.max(12, o.seconds * 3);
  const run = liveLoad(url, bodyFile, rate, seconds, file);
  const from = Date.now();
  const cpuFrom = relay ? cpuSeconds(relay.pid) : 0;
  let spoolPeak = 0;
  for (let done = false; !done; ) {
    if (relay) spoolPeak = Math.max(spoolPeak, await gauge(relay.origin, 'relay_spool_bytes'));
    done = await Promise.race([run.then(() => true), sleep(POLL_MS).then(() => false)]);
  }
  const summary = await run;
  const samples = readLive(file);
  const first = Math.min(...samples.map((sample) => sample.at));
  return {
    span: liveSpan(samples, (Number.isFinite(first) ? first : from) + WARM_UP_MS, Date.now()),
    spoolPeak,
    summary,
    /** Cores the relay used over the run (its CPU seconds ÷ the run's seconds). */
    relayCores: relay ? (cpuSeconds(relay.pid) - cpuFrom) / ((Date.now() - from) / 1000) : Number.NaN,
  };
}
