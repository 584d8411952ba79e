// Relay's JSON nesting limit, checked without parsing so deep nesting is refused before JSON.parse sees it.
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './bytes.ts';

/**
 * Sentry's Relay reads envelope headers and event payloads with serde_json, whose recursion limit (128) refuses the
 * 128th array or object opened inside another: 127 levels pass.
 */
export const RELAY_MAX_JSON_DEPTH = 127;

/**
 * True when the JSON text in `bytes[start, end)` opens more than `maxDepth` arrays/objects inside one another.
 * Brackets inside strings do not count (an escaped quote does not end a string). It does not validate the JSON
 * (JSON.parse does, afterwards): it exists so that hostile nesting is refused before a parser spends time on it.
 * One pass, no allocation; it stops at the first level too deep, or where the text closes more than it opened.
 * `text`: the same bytes decoded as latin1, when the caller has it (its brackets are counted faster).
 */
export function exceedsDepth(bytes: Uint8Array, start: number, end: number, maxDepth: number, text?: string): boolean {
  if (text === undefined ? fewOpeners(bytes, start, end, maxDepth) : fewOpenersIn(text, maxDepth)) return false;
  let depth = 0;
  let i = start;
  while (i < end) {
    const byte = bytes[i++];
    if (byte === QUOTE) {
      while (i < end) {
        const inside = bytes[i++];
        if (inside === BACKSLASH) i++;
        else if (inside === QUOTE) break;
      }
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > maxDepth) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      // Closing more than was opened is invalid JSON: no parser reads past it.
      if (--depth < 0) return false;
    }
  }
  return false;
}

/**
 * True when `[start, end)` holds at most `max` bytes "[" and "{" in all, so it cannot nest deeper than `max`: found
 * by indexOf (native), which skips the bytes between them many times faster than the loop above. Brackets inside
 * strings are counted too, which only sends more text to the loop.
 */
function fewOpeners(bytes: Uint8Array, start: number, end: number, max: number): boolean {
  // A view, so that no search runs past `end` (into the rest of a 20 MiB envelope, once per item).
  const text = bytes.subarray(start, end);
  let count = 0;
  for (const opener of [OPEN_BRACE, OPEN_BRACKET]) {
    for (let at = text.indexOf(opener); at !== -1; at = text.indexOf(opener, at + 1)) {
      if (++count > max) return false;
    }
  }
  return true;
}

/** The same for `bytes[start, end)` decoded as latin1 (one character a byte): a string's indexOf, cheaper a call. */
function fewOpenersIn(text: string, max: number): boolean {
  let count = 0;
  for (const opener of ['{', '[']) {
    for (let at = text.indexOf(opener); at !== -1; at = text.indexOf(opener, at + 1)) {
      if (++count > max) return false;
    }
  }
  return true;
}
