// Open-loop load at a fixed rate (wrk cannot hold a rate): requests leave on schedule whether or not earlier ones
// have been answered, and latency counts from the scheduled time, so a stall shows up instead of slowing the load
// down (no coordinated omission). Prints one JSON line; with LATENCY_FILE, also every request's `<epoch ms
// scheduled> <latency ms>` (the growth bench takes a p99 over part of the run).
import { readFileSync, writeFileSync } from 'node:fs';
import { Pool } from 'undici';

const [url = '', bodyFile = '', rateText = '1000', secondsText = '10'] = process.argv.slice(2);
const body = readFileSync(bodyFile);
const rate = Number(rateText);
const seconds = Number(secondsText);
const target = new URL(url);
// Few connections: with 256 the generator's own bookkeeping put its p99 (straight to the sink, no proxy) at
// 120–180 ms on the 2-core test machine, with 16–32 at 30–55 ms.
const pool = new Pool(target.origin, { connections: 32, keepAliveTimeout: 60_000 });

const latencies: number[] = [];
const timeline: string[] | undefined = process.env.LATENCY_FILE ? [] : undefined;
let errors = 0;
let non2xx = 0;
const pending = new Set<Promise<void>>();
const start = performance.now();
const total = Math.round(rate * seconds);
let sent = 0;

await new Promise<void>((resolve) => {
  const tick = () => {
    const now = performance.now();
    const due = Math.min(total, Math.floor(((now - start) / 1000) * rate));
    while (sent < due) {
      const scheduled = start + (sent / rate) * 1000;
      sent++;
      const p: Promise<void> = pool
        .request({
          method: 'POST',
          path: target.pathname,
          body,
          headers: { 'content-type': 'text/plain;charset=UTF-8' },
        })
        .then(async (response) => {
          await response.body.dump();
          if (response.statusCode >= 300) non2xx++;
          latencies.push(performance.now() - scheduled);
          timeline?.push(
            `${(performance.timeOrigin + scheduled).toFixed(0)} ${(performance.now() - scheduled).toFixed(2)}`,
          );
        })
        .catch(() => {
          errors++;
        })
        .finally(() => pending.delete(p));
      pending.add(p);
    }
    if (sent >= total) resolve();
    else setTimeout(tick, 1);
  };
  tick();
});
await Promise.all(pending);
const elapsed = (performance.now() - start) / 1000;
if (timeline) writeFileSync(process.env.LATENCY_FILE as string, `${timeline.join('\n')}\n`);
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
process.stdout.write(
  `${JSON.stringify({ rate, sent, completed: latencies.length, errors, non2xx, achieved: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), max: latencies.at(-1) })}\n`,
);
await pool.close();
