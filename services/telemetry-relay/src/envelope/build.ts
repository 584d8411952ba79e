// Envelopes the relay makes itself (CSP reports → raw_security items) are sized before a byte of them exists, held
// to the tunnel's own limits, and written once into a buffer of exactly that size: the caller charges the size to the
// memory budget in between (issue 24: a 106 KiB batch used to become tens of megabytes, uncharged).
import { RelayError } from '../core/errors.ts';
import type { Envelope, EnvelopeItem } from './types.ts';

export interface BuildLimits {
  maxEnvelopeBytes: number;
  maxItems: number;
  /** Largest payload of one item. */
  maxItemBytes: number;
  maxItemHeaderBytes: number;
  /** All header lines together. */
  maxTotalHeaderBytes: number;
}

export interface Part {
  header: { type: string } & Record<string, unknown>;
  payload: Buffer | string;
}

/** An envelope sized and checked, not yet written: `bytes` is what writing it allocates. */
export interface Plan {
  bytes: number;
  header: Record<string, unknown>;
  headerLine: string;
  items: Array<{ header: Record<string, unknown>; headerLine: string; payload: Buffer | string; length: number }>;
}

const tooLarge = (detail: string) => new RelayError('too_large', detail);

export function planEnvelope(header: Record<string, unknown>, parts: readonly Part[], limits: BuildLimits): Plan {
  if (parts.length > limits.maxItems) {
    throw tooLarge(`the envelope would have ${parts.length} items; at most ${limits.maxItems} are accepted`);
  }
  const headerLine = JSON.stringify(header);
  let headerBytes = Buffer.byteLength(headerLine);
  let bytes = headerBytes;
  const items: Plan['items'] = [];
  for (const [index, part] of parts.entries()) {
    const length = typeof part.payload === 'string' ? Buffer.byteLength(part.payload) : part.payload.length;
    if (length > limits.maxItemBytes) {
      throw tooLarge(`item ${index + 1} would have ${length} bytes; at most ${limits.maxItemBytes} are accepted`);
    }
    const itemHeader = { ...part.header, length };
    const line = JSON.stringify(itemHeader);
    const lineBytes = Buffer.byteLength(line);
    if (lineBytes > limits.maxItemHeaderBytes) {
      throw tooLarge(`item ${index + 1}'s header would be ${lineBytes} bytes; at most ${limits.maxItemHeaderBytes}`);
    }
    headerBytes += lineBytes;
    if (headerBytes > limits.maxTotalHeaderBytes) {
      throw tooLarge(`the envelope's header lines would add up to more than ${limits.maxTotalHeaderBytes} bytes`);
    }
    bytes += 2 + lineBytes + length;
    if (bytes > limits.maxEnvelopeBytes) {
      throw tooLarge(`the envelope would be more than ${limits.maxEnvelopeBytes} bytes`);
    }
    items.push({ header: itemHeader, headerLine: line, payload: part.payload, length });
  }
  return { bytes, header, headerLine, items };
}

/** Writes a plan into one buffer of `plan.bytes`; item headers and payloads are views into it. */
export function writeEnvelope(plan: Plan): Envelope {
  const out = Buffer.allocUnsafe(plan.bytes);
  let at = out.write(plan.headerLine, 0);
  const headerBytes = out.subarray(0, at);
  const items: EnvelopeItem[] = [];
  for (const item of plan.items) {
    out[at++] = 0x0a;
    const lineStart = at;
    at += out.write(item.headerLine, at);
    const lineEnd = at;
    out[at++] = 0x0a;
    const payloadStart = at;
    at += typeof item.payload === 'string' ? out.write(item.payload, at) : item.payload.copy(out, at);
    items.push({
      type: item.header.type as string,
      header: item.header,
      headerBytes: out.subarray(lineStart, lineEnd),
      payload: out.subarray(payloadStart, at),
    });
  }
  return { bytes: out, header: plan.header, headerBytes, items };
}
