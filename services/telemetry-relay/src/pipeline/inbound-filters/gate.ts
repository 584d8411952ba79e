import type { FilteredKind, InboundFilter } from './types.ts';

// The byte-level gate: before any item is parsed, the string values under the keys the filters read are found with
// one regular expression over the payload and offered to each filter's `mayMatch`. Exact, never a false negative:
// valid JSON delimits every string with unescaped quotes, so each (key, value) pair is found (and some that are no
// key, which only cost a parse); a payload with a `\u` escape, which could spell a key otherwise, is always parsed.

const ESCAPE = /[.*+?^${}()|[\]\\]/g;
const NON_ASCII = /[\u0080-\uffff]/;
const UNESCAPED: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** May any of `filters` match this payload (so it must be parsed)? */
export function createGate(filters: readonly InboundFilter[]): (payload: Buffer) => boolean {
  if (filters.length === 0) return () => false;
  if (filters.some((filter) => filter.keys.length === 0)) return () => true;
  const byKey = new Map<string, InboundFilter[]>();
  for (const filter of filters) {
    for (const key of filter.keys) byKey.set(key, [...(byKey.get(key) ?? []), filter]);
  }
  const keys = [...byKey.keys()].map((key) => key.replace(ESCAPE, '\\$&')).join('|');
  // A key and its string value: `"key":"value"` in an object, `["key","value"]` in a header list. The value is a
  // lookahead, so the next search starts inside it: in `"type":"transaction","transaction":"…"` it is a key too.
  const pairs = new RegExp(`"(${keys})"\\s*[:,]\\s*(?="((?:[^"\\\\]|\\\\.)*)")`, 'gi');
  return (payload) => {
    const text = payload.toString('latin1');
    if (text.includes('\\u')) return true;
    pairs.lastIndex = 0;
    for (let match = pairs.exec(text); match !== null; match = pairs.exec(text)) {
      const key = (match[1] as string).toLowerCase();
      let value = match[2] as string;
      if (NON_ASCII.test(value)) value = Buffer.from(value, 'latin1').toString('utf8');
      if (value.includes('\\')) {
        // No \u escape is left (see above): every other JSON escape stands for one character.
        if (/\\[^"\\/bfnrt]/.test(value)) return true;
        value = value.replace(/\\(.)/g, (_, char: string) => UNESCAPED[char] ?? char);
      }
      for (const filter of byKey.get(key) ?? []) if (filter.mayMatch(key, value)) return true;
    }
    return false;
  };
}

/** The kind of item the filters judge, or undefined for every other item type. */
export function filteredKind(type: string): FilteredKind | undefined {
  if (type === 'event' || type === 'transaction') return type;
  if (type === 'raw_security' || type === 'security') return 'security';
  return undefined;
}
