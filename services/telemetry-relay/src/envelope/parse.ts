// The envelope's header line (parseEnvelopeHeader, as it arrives, so the DSN is authorized before any item is
// read), then the items as Relay's `Envelope::parse_request` accepts them: Headers { "\n" Item } [ "\n" ], a payload of
// `length` bytes or up to the next "\n"; views into the body (forwarded byte for byte); errors name the byte offset.
import { RelayError } from '../core/errors.ts';
import { DEFAULT_MAX_ITEM_HEADER_BYTES, DEFAULT_MAX_TOTAL_HEADER_BYTES } from '../core/limits.ts';
import { NEWLINE } from './bytes.ts';
import { ENVELOPE_HEADER_FIELDS, ITEM_HEADER_FIELDS, REQUEST_META_KEYS } from './header-fields.ts';
import { readHeader } from './header-json.ts';
import { exceedsDepth, RELAY_MAX_JSON_DEPTH } from './json-depth.ts';
import type { Envelope, EnvelopeHeader, EnvelopeItem } from './types.ts';

export interface ParseLimits {
  /** Longest envelope header line, in bytes. */
  maxHeaderBytes: number;
  maxItems: number;
  /** Largest payload of the item types in `EVENT_LIKE` (Relay's max_event_size). */
  maxEventItemBytes: number;
  /** Longest item header line (default DEFAULT_MAX_ITEM_HEADER_BYTES). */
  maxItemHeaderBytes?: number;
  /** All header lines of one envelope together, whitespace between items included (default DEFAULT_MAX_TOTAL_HEADER_BYTES). */
  maxTotalHeaderBytes?: number;
}

/** Item types whose payload is a single JSON event-like document, bounded like Relay's max_event_size. */
const EVENT_LIKE = new Set(['event', 'transaction', 'feedback', 'user_report', 'security', 'check_in']);
/**
 * The first event-like payload up to this size is decoded once here (latin1, `EnvelopeItem.latin1`): its depth
 * check counts brackets in the string faster than in the bytes, and the stages read the same decode. One item,
 * and a bounded one, so a hostile envelope's strings stay as small as the stages' one slot (docs/decisions/030).
 */
const DECODED_PAYLOAD_BYTES = 64 * 1024;
/** Relay-internal item types (`ItemType::is_internal`): Relay's envelope endpoint refuses them from clients. */
const INTERNAL_ITEM_TYPES: ReadonlySet<string> = new Set(['integration']);

/**
 * The envelope header, from its line (without the newline) — what the body reader hands over as soon as the first
 * line has arrived, so the DSN can be authorized before the items are read.
 */
export function parseEnvelopeHeader(line: Buffer, limits: ParseLimits): EnvelopeHeader {
  if (line.length > limits.maxHeaderBytes) {
    throw new RelayError('too_large', `the envelope header (line 1) is longer than ${limits.maxHeaderBytes} bytes`);
  }
  if (line.length === 0) throw malformed('the envelope header line (line 1) is empty');
  const header = readHeader(line, 0, line.length, ENVELOPE_HEADER_FIELDS);
  if (typeof header === 'string') throw malformed(`envelope header (line 1, offset 0): ${header}`);
  for (const key of REQUEST_META_KEYS) {
    if (Object.hasOwn(header, key)) {
      throw malformed(
        `envelope header: "${key}" is request metadata Sentry would take over this request's own; a tunnel cannot vouch for it`,
      );
    }
  }
  return header;
}

/** Parses a whole body. `header`, when given, was parsed by the caller from the body's first line. */
export function parseEnvelope(bytes: Buffer, limits: ParseLimits, header?: EnvelopeHeader): Envelope {
  const maxItemHeader = limits.maxItemHeaderBytes ?? DEFAULT_MAX_ITEM_HEADER_BYTES;
  const maxTotal = limits.maxTotalHeaderBytes ?? DEFAULT_MAX_TOTAL_HEADER_BYTES;
  const firstNewline = bytes.indexOf(NEWLINE);
  const headerEnd = firstNewline === -1 ? bytes.length : firstNewline;
  const headerBytes = bytes.subarray(0, headerEnd);
  const envelopeHeader = header ?? parseEnvelopeHeader(headerBytes, limits);
  let headerTotal = headerEnd;

  const items: EnvelopeItem[] = [];
  let decoded = false;
  let offset = headerEnd + 1;
  while (offset < bytes.length) {
    const start = skipWhitespace(bytes, offset);
    if (start === bytes.length) {
      throw malformed(`only whitespace follows offset ${offset}: an envelope ends with at most one newline`);
    }
    const number = items.length + 1;
    if (items.length >= limits.maxItems) {
      throw new RelayError('too_large', `the envelope has more than ${limits.maxItems} items`);
    }
    const newline = bytes.indexOf(NEWLINE, start);
    const end = newline === -1 ? bytes.length : newline;
    if (end - start > maxItemHeader) {
      throw new RelayError(
        'too_large',
        `item ${number} header at offset ${start} is longer than ${maxItemHeader} bytes`,
      );
    }
    headerTotal += end - offset;
    if (headerTotal > maxTotal) {
      throw new RelayError('too_large', `the envelope's header lines add up to more than ${maxTotal} bytes`);
    }
    const itemHeader = readItemHeader(bytes, start, end);
    if (typeof itemHeader === 'string') throw malformed(`item ${number} header (offset ${start}): ${itemHeader}`);
    const type = itemHeader.type;
    if (typeof type !== 'string') throw malformed(`item ${number} header (offset ${start}): "type" is missing`);
    if (INTERNAL_ITEM_TYPES.has(type)) {
      throw malformed(
        `item ${number} header (offset ${start}): type "${type}" is internal to Sentry's relays; Sentry refuses it from clients`,
      );
    }

    const payloadStart = Math.min(end + 1, bytes.length);
    const payloadEnd = payloadEndOf(bytes, payloadStart, itemHeader.length, number, start);
    const payloadLength = payloadEnd - payloadStart;
    let latin1: string | undefined;
    if (EVENT_LIKE.has(type)) {
      if (payloadLength > limits.maxEventItemBytes) {
        throw new RelayError(
          'too_large',
          `item ${number} (${type}) has ${payloadLength} bytes, more than the ${limits.maxEventItemBytes} allowed`,
        );
      }
      // Relay reads event payloads with the parser (and depth limit) it reads header lines with: it would drop one
      // nested deeper, after the browser was told "accepted" (issue 24).
      if (!decoded && payloadLength <= DECODED_PAYLOAD_BYTES) {
        latin1 = bytes.toString('latin1', payloadStart, payloadEnd);
        decoded = true;
      }
      if (exceedsDepth(bytes, payloadStart, payloadEnd, RELAY_MAX_JSON_DEPTH, latin1)) {
        throw malformed(
          `item ${number} (${type}) nests arrays/objects deeper than ${RELAY_MAX_JSON_DEPTH} levels (Sentry's parser refuses it)`,
        );
      }
    }
    items.push({
      type,
      header: itemHeader,
      headerBytes: bytes.subarray(start, end),
      payload: bytes.subarray(payloadStart, payloadEnd),
      latin1,
    });
    offset = payloadEnd + 1;
  }
  return { bytes, header: envelopeHeader, headerBytes, items };
}

/** Where the payload starting at `start` ends: after `length` bytes (then "\n" or the end), else at the next "\n". */
function payloadEndOf(bytes: Buffer, start: number, length: unknown, number: number, headerAt: number): number {
  if (typeof length !== 'number') {
    const newline = bytes.indexOf(NEWLINE, start);
    return newline === -1 ? bytes.length : newline;
  }
  const end = start + length;
  if (end > bytes.length) {
    throw malformed(
      `item ${number} header (offset ${headerAt}): declares length ${length} but only ${bytes.length - start} bytes remain at offset ${start}`,
    );
  }
  if (end < bytes.length && bytes[end] !== NEWLINE) {
    throw malformed(`item ${number}: expected a newline or the end after its ${length}-byte payload, at offset ${end}`);
  }
  return end;
}

/**
 * Short item header lines repeat across envelopes (`{"type":"event"}`, `{"type":"session"}` …): what a line parses to
 * is kept by its bytes, so most items skip JSON.parse and the checks. Lines that are refused are not kept; the table
 * starts over when full, so hostile lines only cost the misses.
 */
const ITEM_HEADER_CACHE_LINE_BYTES = 64;
const ITEM_HEADER_CACHE_SIZE = 256;
const itemHeaders = new Map<string, Readonly<Record<string, unknown>>>();

function readItemHeader(bytes: Buffer, start: number, end: number): Readonly<Record<string, unknown>> | string {
  if (end - start > ITEM_HEADER_CACHE_LINE_BYTES) return readHeader(bytes, start, end, ITEM_HEADER_FIELDS);
  // latin1 maps every byte to one character: equal keys are equal bytes, whatever the encoding.
  const key = bytes.toString('latin1', start, end);
  const known = itemHeaders.get(key);
  if (known) return known;
  const header = readHeader(bytes, start, end, ITEM_HEADER_FIELDS);
  if (typeof header === 'string') return header;
  if (itemHeaders.size >= ITEM_HEADER_CACHE_SIZE) itemHeaders.clear();
  itemHeaders.set(key, Object.freeze(header));
  return header;
}

/** Index of the first byte at or after `from` that is not JSON whitespace (space, tab, CR, LF). */
function skipWhitespace(bytes: Buffer, from: number): number {
  let i = from;
  while (i < bytes.length) {
    const byte = bytes[i];
    if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) break;
    i++;
  }
  return i;
}

function malformed(detail: string): RelayError {
  return new RelayError('malformed', detail);
}
