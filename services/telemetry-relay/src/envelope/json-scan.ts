// What JSON.parse lets through in a header line but Relay's serde_json does not (nesting past its limit, a key given
// twice, half a surrogate pair, `2.0`/`2e0`/`-0` as an integer, invalid UTF-8), found in one pass without allocating
// before JSON.parse sees the line (`scanJson`); the rare lines it flags are looked at again with `members`.
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  MINUS,
  NINE,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  ZERO,
} from './bytes.ts';

export interface JsonScan {
  /** More than `maxDepth` arrays/objects open inside one another (the scan stopped there); as `exceedsDepth` says. */
  tooDeep: boolean;
  /** Members of the outermost object, counted as written (a key given twice counts twice). */
  members: number;
  /** A `\u` escape encodes half of a surrogate pair (serde_json refuses such a string, JSON.parse does not). */
  loneSurrogate: boolean;
  /** Some number is written with a fraction or an exponent, or as -0. */
  nonIntegerNumber: boolean;
  /** Some byte is not ASCII (only then is the text worth checking for valid UTF-8). */
  nonAscii: boolean;
}

/**
 * Scans JSON text; writes into and returns `out`. `tooDeep` holds for any text; the other fields mean something only
 * for text JSON.parse accepts. Strings end where `exceedsDepth` ends them, so both agree on the depth of any text.
 */
export function scanJson(bytes: Uint8Array, start: number, end: number, out: JsonScan, maxDepth: number): JsonScan {
  out.tooDeep = false;
  out.members = 0;
  out.loneSurrogate = false;
  out.nonIntegerNumber = false;
  out.nonAscii = false;
  let depth = 0;
  /** Closed more than it opened: invalid, and (as in exceedsDepth) no longer checked for depth. */
  let unbalanced = false;
  let i = start;
  while (i < end) {
    const byte = bytes[i] as number;
    if (byte === QUOTE) {
      i = skipString(bytes, i + 1, end, out);
    } else if (byte === MINUS || (byte >= ZERO && byte <= NINE)) {
      i = skipNumber(bytes, i, end, out);
    } else {
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        if (++depth > maxDepth && !unbalanced) {
          out.tooDeep = true;
          return out;
        }
      } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        if (--depth < 0) unbalanced = true;
      } else if (byte === COLON && depth === 1) out.members++;
      else if (byte >= 0x80) out.nonAscii = true;
      i++;
    }
  }
  return out;
}

/** Index after the closing quote of the string whose content starts at `i`; flags lone surrogate escapes. */
function skipString(bytes: Uint8Array, i: number, end: number, out: JsonScan): number {
  let highPending = false;
  while (i < end) {
    const byte = bytes[i];
    if (byte === QUOTE) break;
    if (byte === BACKSLASH && bytes[i + 1] === 0x75 /* u */ && i + 6 <= end) {
      const unit = hex4(bytes, i + 2);
      if (unit < 0) {
        i += 2; // not an escape JSON.parse accepts: the string goes on as exceedsDepth reads it
        continue;
      }
      if (unit >= 0xdc00 && unit <= 0xdfff) {
        if (!highPending) out.loneSurrogate = true;
        highPending = false;
      } else {
        if (highPending) out.loneSurrogate = true;
        highPending = unit >= 0xd800 && unit <= 0xdbff;
      }
      i += 6;
      continue;
    }
    if (highPending) {
      out.loneSurrogate = true;
      highPending = false;
    }
    if ((byte as number) >= 0x80) out.nonAscii = true;
    i += byte === BACKSLASH ? 2 : 1;
  }
  if (highPending) out.loneSurrogate = true;
  return i + 1;
}

function skipNumber(bytes: Uint8Array, i: number, end: number, out: JsonScan): number {
  const start = i;
  while (i < end) {
    const byte = bytes[i] as number;
    if (byte === 0x2e /* . */ || byte === 0x65 /* e */ || byte === 0x45 /* E */) out.nonIntegerNumber = true;
    else if (!(byte === MINUS || byte === 0x2b /* + */ || (byte >= ZERO && byte <= NINE))) break;
    i++;
  }
  if (i - start === 2 && bytes[start] === MINUS && bytes[start + 1] === ZERO) out.nonIntegerNumber = true;
  return i;
}

/** The four hex digits at `at` as a number, or -1 when they are not four hex digits. */
function hex4(bytes: Uint8Array, at: number): number {
  let value = 0;
  for (let k = at; k < at + 4; k++) {
    const c = bytes[k] ?? 0;
    const lower = c | 0x20;
    let digit: number;
    if (c >= ZERO && c <= NINE) digit = c - ZERO;
    else if (lower >= 0x61 && lower <= 0x66)
      digit = lower - 0x57; // 'a' - 10
    else return -1;
    value = value * 16 + digit;
  }
  return value;
}

export interface Member {
  /** The key as JSON means it (escapes decoded). */
  key: string;
  /** The key exactly as written, quotes included. */
  rawKey: string;
  /** The value exactly as written. */
  rawValue: string;
}

/** The members of a JSON object text that JSON.parse has accepted, in order, duplicates included. */
export function members(text: string): Member[] {
  const found: Member[] = [];
  let i = skipSpace(text, text.indexOf('{') + 1);
  while (i < text.length && text[i] === '"') {
    const keyEnd = stringEnd(text, i);
    const rawKey = text.slice(i, keyEnd);
    i = skipSpace(text, skipSpace(text, keyEnd) + 1); // past the ':'
    const valueEnd = valueEndAt(text, i);
    found.push({ key: JSON.parse(rawKey) as string, rawKey, rawValue: text.slice(i, valueEnd) });
    i = skipSpace(text, valueEnd);
    if (text[i] === ',') i = skipSpace(text, i + 1);
  }
  return found;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  return i;
}

/** Index after the closing quote of the string starting at `i`. */
function stringEnd(text: string, i: number): number {
  for (i++; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i + 1;
  }
  return i;
}

function valueEndAt(text: string, i: number): number {
  let depth = 0;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      i = stringEnd(text, i) - 1;
      if (depth === 0) return i + 1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (depth === 0) return i;
      if (--depth === 0) return i + 1;
    } else if (depth === 0 && (c === ',' || c === ' ' || c === '\t' || c === '\n' || c === '\r')) return i;
  }
  return i;
}
