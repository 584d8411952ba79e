// The inbound filters' gate: before an item is parsed, string search finds the values under the keys the filters read
// (exception value, User-Agent in any case, transaction name) for each filter's `mayMatch`, and the filters' needles; a
// payload with a `\u` escape (which could spell a key) is always parsed. Why, and its one inexactness: decision 013.
import type { EnvelopeItem } from '../../envelope/types.ts';
import { tableable } from '../../pii/byte-scan.ts';
import type { ScanPlan } from '../item-scan.ts';
import type { ItemTexts } from '../item-text.ts';
import type { FilteredKind, InboundFilter } from './types.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const USER_AGENT = 'user-agent';
const UNESCAPED: ReadonlyMap<string, string> = new Map(Object.entries({ b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }));
const NON_ASCII = /[\u0080-\u00ff]/;
/** Verdicts kept per gate (paths and user agents repeat across envelopes), and the longest value kept. */
const MAX_VERDICTS = 1000;
const MAX_VERDICT_LENGTH = 256;

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/** The string value after the key ending at `end` (`"key": "value"` or `["key", "value"]`); undefined when none. */
function valueAfter(text: string, end: number): string | undefined {
  let at = end;
  while (isSpace(text.charCodeAt(at))) at++;
  const separator = text.charCodeAt(at);
  if (separator !== 0x3a && separator !== 0x2c) return undefined; // ':' or ','
  at++;
  while (isSpace(text.charCodeAt(at))) at++;
  if (text.charCodeAt(at) !== QUOTE) return undefined;
  const start = at + 1;
  let close = text.indexOf('"', start);
  while (close !== -1) {
    let slashes = 0;
    while (text.charCodeAt(close - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) break;
    close = text.indexOf('"', close + 1);
  }
  if (close === -1) return undefined;
  let value = text.slice(start, close);
  // The text is the payload's bytes one per character: UTF-8 beyond ASCII is decoded again.
  if (NON_ASCII.test(value)) value = Buffer.from(value, 'latin1').toString('utf8');
  if (!value.includes('\\')) return value;
  // No \u escape is left (the caller checked): every other JSON escape stands for one character.
  return value.replace(/\\(.)/g, (_, char: string) => UNESCAPED.get(char) ?? char);
}

/** Calls `found` with every string value under `key` (case-sensitive; a User-Agent header in any case) until true. */
function someValue(text: string, key: string, found: (value: string) => boolean): boolean {
  if (key !== USER_AGENT) {
    // Searched without the leading quote, which starts every key (V8 searches faster from a rarer first character).
    const needle = `${key}"`;
    for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
      if (text.charCodeAt(at - 1) !== QUOTE) continue;
      const value = valueAfter(text, at + needle.length);
      if (value !== undefined && found(value)) return true;
    }
    return false;
  }
  for (const tail of ['gent"', 'GENT"']) {
    for (let at = text.indexOf(tail); at !== -1; at = text.indexOf(tail, at + tail.length)) {
      const end = at + tail.length;
      if (
        end < USER_AGENT.length + 2 ||
        text.slice(end - USER_AGENT.length - 2, end).toLowerCase() !== '"user-agent"'
      ) {
        continue;
      }
      const value = valueAfter(text, end);
      if (value !== undefined && found(value)) return true;
    }
  }
  return false;
}

/**
 * May any of `filters` match this item (so it must be parsed)? The needles are searched in the scan `plan` shares
 * with the other stages; the payload's latin1 decode too is shared (pipeline/item-text.ts).
 */
export function createGate(
  filters: readonly InboundFilter[],
  plan: ScanPlan,
): (item: EnvelopeItem, texts: ItemTexts) => boolean {
  if (filters.length === 0) return () => false;
  if (filters.some((filter) => filter.keys.length === 0 && !filter.needles)) return () => true;
  const allNeedles = filters.flatMap((filter) => filter.needles ?? []);
  // ASCII needles (all of today's): in their own case, as `includes` finds them.
  const scanned = plan.add(allNeedles.filter(tableable).map((text) => ({ text, exact: true })));
  const needles = allNeedles.filter((needle) => !tableable(needle));
  const byKey = new Map<string, InboundFilter[]>();
  for (const filter of filters) {
    for (const key of filter.keys) byKey.set(key, [...(byKey.get(key) ?? []), filter]);
  }
  const verdicts = new Map<string, Map<string, boolean>>([...byKey.keys()].map((key) => [key, new Map()]));
  const mayMatch = (key: string, value: string, judges: readonly InboundFilter[]) => {
    const known = verdicts.get(key) as Map<string, boolean>;
    let verdict = known.get(value);
    if (verdict === undefined) {
      verdict = judges.some((filter) => filter.mayMatch(key, value));
      if (value.length <= MAX_VERDICT_LENGTH) {
        if (known.size >= MAX_VERDICTS) known.clear();
        known.set(value, verdict);
      }
    }
    return verdict;
  };
  return (item, texts) => {
    const text = texts.of(item);
    if (text.includes('\\u')) return true;
    if (scanned !== 0 && (texts.found(item, plan) & scanned) !== 0) return true;
    for (const needle of needles) if (text.includes(needle)) return true;
    for (const [key, judges] of byKey) {
      let previous: string | undefined;
      const judged = someValue(text, key, (value) => {
        if (value === previous) return false;
        previous = value;
        return mayMatch(key, value, judges);
      });
      if (judged) return true;
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
