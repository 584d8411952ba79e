// Writing an envelope back after items were removed or added, reusing the received bytes of everything kept.
import type { Envelope, EnvelopeItem } from './types.ts';

const NEWLINE = Buffer.from('\n');

/**
 * The envelope with `items` in place of its own: header line and each kept item byte for byte as received, joined
 * by "\n" (no trailing newline, like the SDKs). Only called when items were removed or added.
 */
export function serializeEnvelope(envelope: Pick<Envelope, 'headerBytes'>, items: readonly EnvelopeItem[]): Buffer {
  const parts: Buffer[] = [envelope.headerBytes];
  for (const item of items) parts.push(NEWLINE, item.headerBytes, NEWLINE, item.payload);
  return Buffer.concat(parts);
}

/** A new item with an explicit length (so its payload may hold anything). */
export function createItem(header: { type: string } & Record<string, unknown>, payload: Buffer): EnvelopeItem {
  const full = { ...header, length: payload.length };
  return { type: header.type, header: full, headerBytes: Buffer.from(JSON.stringify(full)), payload };
}
