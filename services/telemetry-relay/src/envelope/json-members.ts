// Whether a JSON text gives some object a key twice. JSON.parse, like Relay's serde_json, keeps the last value, so
// the first one is in the bytes but in no parse: the scrub stage must not forward those bytes (docs/decisions/046).
// Counted, not listed: members as written against the keys the parse holds, without decoding or allocating.

/** Members of all the objects in `text` (JSON that JSON.parse accepted) as written: one ":" outside strings each. */
export function memberCount(text: string): number {
  let count = 0;
  let i = 0;
  for (;;) {
    const quote = text.indexOf('"', i);
    const stop = quote === -1 ? text.length : quote;
    // Between two strings there is only structure (brackets, commas, colons, numbers, literals, space).
    for (; i < stop; i++) if (text.charCodeAt(i) === 0x3a) count++;
    if (quote === -1) return count;
    i = stringEnd(text, quote + 1);
  }
}

/** Index after the quote that closes the string whose content starts at `from` (or the text's length). */
function stringEnd(text: string, from: number): number {
  for (let quote = text.indexOf('"', from); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    // Escaped when an odd run of backslashes stands before it; each run is counted once.
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return quote + 1;
  }
  return text.length;
}

/** Keys of all the objects in `value` (what JSON.parse returned): one own key per distinct key written. */
export function keyCount(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const element of value) count += keyCount(element);
    return count;
  }
  const keys = Object.keys(value);
  count += keys.length;
  for (const key of keys) count += keyCount((value as Record<string, unknown>)[key]);
  return count;
}

/** Whether `text`, which JSON.parse read as `parsed`, gives some object a key twice. */
export const hasDuplicateKeys = (text: string, parsed: unknown): boolean => memberCount(text) !== keyCount(parsed);
