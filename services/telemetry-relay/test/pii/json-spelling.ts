// JSON text written by hand for the prescan's differential test: each string spelled as a client may spell it
// (JSON.stringify's way, every unit as a \u escape in either case, only those beyond ASCII as Python's json.dumps
// does, or a mix with short escapes and `\/`), and a value tree that keeps those spellings and any duplicate keys,
// which JSON.stringify of an object cannot.
import fc from 'fast-check';

/** A decoded text and how it is written between the quotes. */
export interface Spelled {
  text: string;
  raw: string;
}

const hex4 = (code: number, upper: boolean) => {
  const digits = code.toString(16).padStart(4, '0');
  return `\\u${upper ? digits.toUpperCase() : digits}`;
};
const SHORT: Record<string, string> = { '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One UTF-16 unit as JSON.stringify writes it (lone surrogates too), or escaped `how`. */
function unit(text: string, i: number, how: 'min' | 'u' | 'U' | 'short'): string {
  const c = text[i] as string;
  const code = text.charCodeAt(i);
  if (how === 'u' || how === 'U') return hex4(code, how === 'U');
  if (how === 'short' && c === '/') return '\\/';
  if (c === '"' || c === '\\') return `\\${c}`;
  if (SHORT[c] !== undefined) return SHORT[c] as string;
  if (code < 0x20) return hex4(code, false);
  if (code >= 0xd800 && code <= 0xdfff) {
    // A surrogate pair is written as its character; a lone one needs its escape.
    const pairs =
      code <= 0xdbff ? (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 : (text.charCodeAt(i - 1) & 0xfc00) === 0xd800;
    if (!pairs) return hex4(code, false);
  }
  return c;
}

/**
 * `text` spelled: as JSON.stringify would, every unit as \u (lower or upper hex), those beyond ASCII as \u (Python's
 * json.dumps), or a mix chosen by `mask` (bit i%31 of it: unit i escaped, as \u or as its short escape where it has
 * one, `/` as `\/`).
 */
export function spell(text: string, mode: 'min' | 'u' | 'U' | 'mix' | 'ascii', mask: number): Spelled {
  let raw = '';
  for (let i = 0; i < text.length; i++) {
    // A pair's low half is written as its high half was: a raw half alone is no UTF-8.
    const low = i > 0 && (text.charCodeAt(i) & 0xfc00) === 0xdc00 && (text.charCodeAt(i - 1) & 0xfc00) === 0xd800;
    const bit = low ? i - 1 : i;
    if (mode === 'ascii') raw += unit(text, i, text.charCodeAt(i) > 0x7e ? 'u' : 'min');
    else if (mode !== 'mix') raw += unit(text, i, mode);
    else if (((mask >>> (bit % 31)) & 1) === 0) raw += unit(text, i, 'short');
    else raw += unit(text, i, bit % 2 === 0 ? 'u' : 'U');
  }
  return { text, raw };
}

/** Decoded text changed before spelling: in another case, or with ſ and K (Kelvin), which fold to s and k. */
function transform(text: string, how: 'same' | 'upper' | 'lower' | 'fold'): string {
  if (how === 'upper') return text.toUpperCase();
  if (how === 'lower') return text.toLowerCase();
  if (how === 'fold') return text.replaceAll('s', '\u017f').replaceAll('k', '\u212a').replaceAll('K', '\u212a');
  return text;
}

/**
 * Texts spelled: mostly as they are and as JSON.stringify writes them; in another case, folded, or with escapes with
 * weight `rare` against 100 each, and folded with only the letters beyond ASCII escaped (`\u017f`) with `folded`.
 */
export const spelled = (texts: fc.Arbitrary<string>, rare: number, folded = 0): fc.Arbitrary<Spelled> =>
  fc.oneof(
    {
      arbitrary: fc
        .tuple(
          texts,
          fc.oneof(
            { arbitrary: fc.constant('same' as const), weight: 100 },
            { arbitrary: fc.constantFrom('upper' as const, 'lower' as const, 'fold' as const), weight: rare },
          ),
          fc.oneof(
            { arbitrary: fc.constant('min' as const), weight: 100 },
            { arbitrary: fc.constantFrom('u' as const, 'U' as const, 'mix' as const, 'ascii' as const), weight: rare },
          ),
          fc.nat(),
        )
        .map(([text, how, mode, mask]) => spell(transform(text, how), mode, mask)),
      weight: 100,
    },
    { arbitrary: texts.map((text) => spell(transform(text, 'fold'), 'ascii', 0)), weight: folded },
  );

/** A JSON value as text, with the strings' spellings kept. */
export type Json =
  | { s: Spelled }
  | { n: string }
  | { lit: 'true' | 'false' | 'null' }
  | { a: Json[] }
  | { o: Array<[Spelled, Json]> };

export const write = (value: Json): string => {
  if ('s' in value) return `"${value.s.raw}"`;
  if ('n' in value) return value.n;
  if ('lit' in value) return value.lit;
  if ('a' in value) return `[${value.a.map(write).join(',')}]`;
  return `{${value.o.map(([k, v]) => `"${k.raw}":${write(v)}`).join(',')}}`;
};

/** A string spelled as JSON.stringify would. */
export const plain = (text: string): Spelled => spell(text, 'min', 0);
