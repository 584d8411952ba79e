// Header lines read exactly as Relay reads them, so the relay never accepts an envelope Sentry would refuse.
import { isUtf8 } from 'node:buffer';
import { CLOSE_BRACE, CR } from './bytes.ts';
import { type FieldRules, fieldProblem } from './header-fields.ts';
import { RELAY_MAX_JSON_DEPTH } from './json-depth.ts';
import { type JsonScan, members, scanJson } from './json-scan.ts';

/**
 * One header line (envelope or item) read the way Sentry's Relay reads it: serde_json's stream parser takes one
 * JSON object, which must be followed directly by "\n" or the end (no trailing whitespace, so no "\r\n"), must be
 * UTF-8, may not nest deeper than serde_json's limit, may not encode half a surrogate pair, and its known fields
 * must have their types and appear once (`header-fields.ts`). Whitespace before the object is allowed.
 * Returns the header, or what is wrong with it.
 */
export function readHeader(
  bytes: Buffer,
  start: number,
  end: number,
  rules: FieldRules,
): Record<string, unknown> | string {
  // One pass before JSON.parse: hostile nesting is refused before the parser spends time on it.
  const scan = scanJson(bytes, start, end, SCAN, RELAY_MAX_JSON_DEPTH);
  if (scan.tooDeep) {
    return `nests arrays/objects deeper than ${RELAY_MAX_JSON_DEPTH} levels (Sentry's parser refuses it)`;
  }
  const text = bytes.toString('utf8', start, end);
  let header: unknown;
  try {
    header = JSON.parse(text);
  } catch (error) {
    return `not valid JSON (${(error as Error).message})`;
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) return 'must be a JSON object';
  const last = bytes[end - 1];
  if (last !== CLOSE_BRACE) {
    return last === CR
      ? 'ends with "\\r": lines end with "\\n" alone (Sentry refuses "\\r\\n")'
      : 'has whitespace after its JSON object (Sentry refuses it)';
  }
  const object = header as Record<string, unknown>;
  if (scan.nonAscii && !isUtf8(bytes.subarray(start, end))) return 'is not valid UTF-8';
  if (scan.loneSurrogate) return 'a \\u escape encodes half of a surrogate pair (Sentry refuses it)';
  let listed: ReturnType<typeof members> | undefined;
  if (scan.members !== Object.keys(object).length) {
    listed = members(text);
    const repeated = repeatedKnownKey(listed, rules);
    if (repeated) return repeated;
  }
  return (
    fieldProblem(object, rules, (key) => {
      if (!scan.nonIntegerNumber) return undefined;
      listed ??= members(text);
      return listed.findLast((member) => member.key === key)?.rawValue;
    }) ?? object
  );
}

/** Reused: readHeader is synchronous, and its result is read before it is called again. */
const SCAN: JsonScan = { tooDeep: false, members: 0, loneSurrogate: false, nonIntegerNumber: false, nonAscii: false };

/** Relay refuses a known field given twice (however its name is spelled); other keys keep their last value. */
function repeatedKnownKey(list: ReturnType<typeof members>, rules: FieldRules): string | undefined {
  const seen = new Map<string, string>();
  for (const { key, rawKey } of list) {
    const first = seen.get(key);
    if (first !== undefined && rules.has(key)) {
      const spellings = first === rawKey ? `` : ` (as ${first} and ${rawKey})`;
      return `"${key}" appears more than once${spellings}; Sentry refuses the envelope`;
    }
    seen.set(key, rawKey);
  }
  return undefined;
}
