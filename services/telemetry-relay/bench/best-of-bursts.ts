// The timing loop of the in-process micros (prescan-micro.ts, stages-micro.ts): each row runs on a fresh copy of one
// of the given payloads (as the server gets a fresh Buffer per request), in short bursts taking turns; the best burst
// per row is printed, the figure least bent by other processes on a shared machine.

const CALLS = 10;

export function printBestOfBursts(
  rows: ReadonlyArray<readonly [string, (bytes: Buffer) => unknown]>,
  copies: readonly Buffer[],
  bursts: number,
): void {
  const best = new Map<string, number>();
  for (let burst = 0; burst < bursts; burst++) {
    for (const [name, run] of rows) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < CALLS; i++) run(Buffer.from(copies[(burst + i) % copies.length] as Buffer));
      const us = Number(process.hrtime.bigint() - start) / CALLS / 1000;
      best.set(name, Math.min(best.get(name) ?? Number.POSITIVE_INFINITY, us));
    }
  }
  for (const [name, us] of best) console.log(`${name.padEnd(36)} ${us.toFixed(2)} µs/item (best of ${bursts} bursts)`);
}
