// Open-loop load at a fixed rate (wrk cannot hold a rate), bench/open-loop.ts as a command: requests leave on
// schedule on sockets of their own, latency counts from the scheduled time (no coordinated omission either way).
// Prints one JSON line; with LATENCY_FILE, also every answered request's `<epoch ms scheduled> <latency ms> <ms it left late>`.
import { readFileSync, writeFileSync } from 'node:fs';
import { openLoop } from './open-loop.ts';

const [url = '', bodyFile = '', rateText = '1000', secondsText = '10'] = process.argv.slice(2);
const timeline: string[] | undefined = process.env.LATENCY_FILE ? [] : undefined;
const result = await openLoop({
  url,
  body: readFileSync(bodyFile),
  rate: Number(rateText),
  seconds: Number(secondsText),
  maxSockets: Number(process.env.OPEN_LOOP_MAX_SOCKETS ?? 1024),
  onAnswer: (at, ms, lag) => timeline?.push(`${at.toFixed(0)} ${ms.toFixed(2)} ${lag.toFixed(2)}`),
});
if (timeline) writeFileSync(process.env.LATENCY_FILE as string, `${timeline.join('\n')}\n`);
process.stdout.write(`${JSON.stringify(result)}\n`);
