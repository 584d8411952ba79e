import { RelayError } from '../pipeline/errors.ts';
import type { Envelope, EnvelopeItem } from './types.ts';

/**
 * Envelope parser per Sentry's spec (develop-docs "Envelopes"; Relay's `Envelope::parse_bytes`):
 *
 *     Envelope = Headers { "\n" Item } [ "\n" ]      Item = Headers "\n" Payload
 *
 * Headers are one line of JSON. An item with `length` has exactly that many payload bytes, followed by "\n" or the
 * end; an item without runs to the next "\n" or the end. Only "\n" ends a line ("\r" is payload). Payloads are never
 * decoded here, unknown item types and header keys are kept as bytes, so an unchanged envelope is forwarded byte for
 * byte. Errors say what was wrong and at which byte offset.
 */

export interface ParseLimits {
  /** Longest header line (envelope or item), in bytes. */
  maxHeaderBytes: number;
  maxItems: number;
  /** Largest payload of the item types in `EVENT_LIKE` (Relay's max_event_size). */
  maxEventItemBytes: number;
}

/** Item types whose payload is a single JSON event-like document, bounded like Relay's max_event_size. */
export const EVENT_LIKE = new Set(['event', 'transaction', 'feedback', 'user_report', 'security', 'check_in']);
const EVENT_ID = /^(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
const NEWLINE = 0x0a;

export function parseEnvelope(bytes: Buffer, limits: ParseLimits): Envelope {
  const headerEnd = lineEnd(bytes, 0, limits, 'envelope header');
  const headerBytes = bytes.subarray(0, headerEnd);
  if (headerBytes.length === 0) throw malformed('the envelope header line (line 1) is empty');
  const headerText = headerBytes.toString('utf8');
  const header = parseHeader(headerText, 'envelope header (line 1, offset 0)');
  const repeated = repeatedKey(headerText);
  if (repeated) throw malformed(`envelope header: "${repeated}" appears more than once (ambiguous; Sentry refuses it)`);
  if (header.event_id !== undefined && (typeof header.event_id !== 'string' || !EVENT_ID.test(header.event_id))) {
    throw malformed(`envelope header: event_id must be 32 hex digits, got ${JSON.stringify(header.event_id)}`);
  }

  const items: EnvelopeItem[] = [];
  let offset = headerEnd + 1;
  while (offset < bytes.length) {
    const start = offset;
    const end = lineEnd(bytes, start, limits, `item ${items.length + 1} header`);
    if (end === start) {
      // Blank lines are allowed only as trailing newlines.
      if (isAllNewlines(bytes, start)) break;
      throw malformed(`empty item header line at offset ${start}`);
    }
    const where = `item ${items.length + 1} header (offset ${start})`;
    const itemHeader = parseHeader(bytes.toString('utf8', start, end), where);
    const type = itemHeader.type;
    if (typeof type !== 'string' || type === '') throw malformed(`${where}: "type" must be a non-empty string`);
    if (items.length >= limits.maxItems) {
      throw new RelayError('too_large', `the envelope has more than ${limits.maxItems} items`);
    }

    let payloadStart = end + 1;
    let payloadEnd: number;
    const declared = itemHeader.length;
    if (end === bytes.length) {
      // The header ran to the end of the body: an item with no payload (allowed only when length is 0 or absent).
      payloadStart = bytes.length;
      if (declared !== undefined && declared !== 0) {
        throw malformed(`${where}: declares length ${String(declared)} but the envelope ends after its header`);
      }
      payloadEnd = bytes.length;
    } else if (declared !== undefined) {
      if (typeof declared !== 'number' || !Number.isSafeInteger(declared) || declared < 0) {
        throw malformed(`${where}: "length" must be a non-negative integer, got ${JSON.stringify(declared)}`);
      }
      payloadEnd = payloadStart + declared;
      if (payloadEnd > bytes.length) {
        throw malformed(
          `${where}: declares length ${declared} but only ${bytes.length - payloadStart} bytes remain at offset ${payloadStart}`,
        );
      }
      if (payloadEnd < bytes.length && bytes[payloadEnd] !== NEWLINE) {
        throw malformed(
          `item ${items.length + 1}: expected a newline or the end after its ${declared}-byte payload, at offset ${payloadEnd}`,
        );
      }
    } else {
      const newline = bytes.indexOf(NEWLINE, payloadStart);
      payloadEnd = newline === -1 ? bytes.length : newline;
    }

    const payloadLength = payloadEnd - payloadStart;
    if (EVENT_LIKE.has(type) && payloadLength > limits.maxEventItemBytes) {
      throw new RelayError(
        'too_large',
        `item ${items.length + 1} (${type}) has ${payloadLength} bytes, more than the ${limits.maxEventItemBytes} allowed`,
      );
    }
    items.push({
      type,
      header: itemHeader,
      headerBytes: bytes.subarray(start, end),
      payload: bytes.subarray(payloadStart, payloadEnd),
    });
    offset = payloadEnd + 1;
  }
  return { bytes, header, headerBytes, items };
}

/** Index of the "\n" ending the line that starts at `start` (or the body's length), bounded by maxHeaderBytes. */
function lineEnd(bytes: Buffer, start: number, limits: ParseLimits, what: string): number {
  const newline = bytes.indexOf(NEWLINE, start);
  const end = newline === -1 ? bytes.length : newline;
  if (end - start > limits.maxHeaderBytes) {
    throw new RelayError('too_large', `the ${what} at offset ${start} is longer than ${limits.maxHeaderBytes} bytes`);
  }
  return end;
}

function parseHeader(line: string, where: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw malformed(`${where}: not valid JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw malformed(`${where}: must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

/**
 * JSON.parse keeps the last of two equal keys; Sentry's parser refuses the header. For the keys that decide where an
 * envelope goes and how it is read (the DSN we authorize, its id, the clock we may shift), a second copy is refused
 * here rather than guessed at. Only a quoted name followed by ':' is a key, so a value spelled the same is not.
 */
const DECISIVE_KEY = /"(dsn|event_id|sent_at)"\s*:/g;
function repeatedKey(line: string): string | undefined {
  const seen = new Set<string>();
  for (const match of line.matchAll(DECISIVE_KEY)) {
    const name = match[1] as string;
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return undefined;
}

function isAllNewlines(bytes: Buffer, from: number): boolean {
  for (let i = from; i < bytes.length; i++) if (bytes[i] !== NEWLINE) return false;
  return true;
}

function malformed(detail: string): RelayError {
  return new RelayError('malformed', detail);
}
