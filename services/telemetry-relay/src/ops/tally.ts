// An envelope's items by data category, as the loss ledger counts them and a spool row keeps them: a short JSON
// object ('{"error":1,"attachment":2}'), the same text for the same item types, so the ledger caches by it.
import { itemCategory, KNOWN_CATEGORIES } from '../envelope/categories.ts';
import type { EnvelopeItem } from '../envelope/types.ts';

/** Items by data category ('unknown' for a type without one). */
export type Tally = ReadonlyMap<string, number>;

export const categoryOf = (type: string): string => itemCategory(type) ?? 'unknown';

export function tallyOf(items: readonly { type: string }[]): Tally {
  const tally = new Map<string, number>();
  for (const item of items) {
    const category = categoryOf(item.type);
    tally.set(category, (tally.get(category) ?? 0) + 1);
  }
  return tally;
}

export const encodeTally = (tally: Tally): string => JSON.stringify(Object.fromEntries(tally));

/** Tally texts by the items' types joined: envelopes come in a handful of shapes (an event, event + attachment). */
const texts = new Map<string, string>();
const MAX_CACHED = 1024;
/** Longer type lists are encoded each time: the cache holds short keys only, whatever clients send. */
const MAX_KEY = 256;

/** `encodeTally(tallyOf(items))`, cached by the sequence of item types. */
export function tallyText(items: readonly EnvelopeItem[]): string {
  const key = items.length === 1 ? (items[0] as EnvelopeItem).type : items.map((item) => item.type).join('\n');
  const cached = texts.get(key);
  if (cached !== undefined) return cached;
  const text = encodeTally(tallyOf(items));
  if (key.length <= MAX_KEY) {
    if (texts.size >= MAX_CACHED) texts.clear();
    texts.set(key, text);
  }
  return text;
}

/** The category labels a tally may hold (read back from disk, so checked: labels stay bounded). */
const LABELS: ReadonlySet<string> = new Set([...KNOWN_CATEGORIES, 'internal', 'unknown']);

/** A spool row's tally; text that is not one (a hand-edited row) counts as one unknown item. */
export function decodeTally(text: string): Tally {
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const tally = new Map<string, number>();
      for (const [category, n] of Object.entries(value)) {
        if (!Number.isSafeInteger(n) || (n as number) <= 0) continue;
        const label = LABELS.has(category) ? category : 'unknown';
        tally.set(label, (tally.get(label) ?? 0) + (n as number));
      }
      return tally;
    }
  } catch {
    // below
  }
  return new Map([['unknown', 1]]);
}
