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
 */
export function exceedsDepth(bytes: Uint8Array, start: number, end: number, maxDepth: number): boolean {
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
