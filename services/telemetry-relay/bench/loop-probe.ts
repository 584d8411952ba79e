// Preloaded into the relay by the benchmark (node --import): every time the event loop was blocked for more than
// 5 ms, appended to LOOP_PROBE_FILE as `<epoch ms at the end of the block> <block ms>` lines, measured with a 1 ms
// timer. (The relay's own nodejs_eventloop_lag_max_seconds samples every 20 ms and reports the whole interval, so
// it overstates a block by up to 20 ms.)
import { appendFileSync } from 'node:fs';

const file = process.env.LOOP_PROBE_FILE;
const INTERVAL_MS = 1;
const REPORT_OVER_MS = 5;
if (file) {
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    const blocked = now - last - INTERVAL_MS;
    if (blocked > REPORT_OVER_MS) appendFileSync(file, `${Date.now()} ${blocked.toFixed(1)}\n`);
    last = now;
  }, INTERVAL_MS).unref();
}
