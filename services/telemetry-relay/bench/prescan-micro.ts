// In-process micro for the scrub prescan: the same prescan as plain regexes (test/pii/prescan-oracle.ts, what it was
// before the byte scan) against today's on the bench event, a fresh Buffer and latin1 decode per call (as the server has them). The best of many short bursts
// is reported: on a shared machine the minimum is the figure least bent by other processes.
// Usage: node bench/prescan-micro.ts
import { createPrescan, TRIGGER_WORDS } from '../src/pii/prescan.ts';
import { createOraclePrescan } from '../test/pii/prescan-oracle.ts';
import { printBestOfBursts } from './best-of-bursts.ts';
import { browserErrorEnvelope } from './envelopes.ts';

const BURSTS = 3000;

const envelope = browserErrorEnvelope('https://k@o.ingest.sentry.io/1');
const event = envelope.subarray(envelope.lastIndexOf(0x0a) + 1);
const copies = Array.from({ length: 64 }, () => Buffer.from(event));

const oracle = createOraclePrescan(TRIGGER_WORDS);
const prescan = createPrescan(TRIGGER_WORDS);
const rows: Array<[string, (bytes: Buffer) => boolean]> = [
  ['copy + decode only', (b) => b.toString('latin1').length < 0],
  ['prescan as plain regexes (oracle)', (b) => oracle(b, b.toString('latin1'))],
  ['prescan (byte scan for key words)', (b) => prescan(b, b.toString('latin1'))],
];

console.log(`event ${event.length} bytes; the oracle says ${oracle(event)}, the prescan says ${prescan(event)}`);
printBestOfBursts(rows, copies, BURSTS);
