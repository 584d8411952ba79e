// Reading back what a spool holds, as replay would, for the spool's, delivery's and the whole relay's tests.
import type { Spool, SpoolRecord } from '../../src/spool/spool.ts';

/** Up to `maxRows` due rows, leased without screening (what replay would lease with memory to spare). */
export function leaseDue(spool: Spool, now: number, maxRows: number): SpoolRecord[] {
  return spool.lease({ now, maxRows, maxBytes: Number.POSITIVE_INFINITY }).rows;
}

/** A leased row's whole body, from its row or its file (rejects as `openBody` does: lost, not ours, a link). */
export async function readSpooledBody(spool: Spool, row: SpoolRecord | undefined): Promise<Buffer> {
  if (!row) throw new Error('no row was leased');
  if (row.body !== undefined) return row.body;
  const handle = await spool.openBody(row);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
