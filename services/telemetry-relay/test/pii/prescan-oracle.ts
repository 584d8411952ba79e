// The prescan as plain regular expressions over the latin1 decode, without its shortcuts (the sampled byte table of
// src/pii/byte-scan.ts, the SSN and IBAN shapes, the backward scan for URL credentials): prescan.test.ts and
// number-shapes.test.ts hold the prescan to this answer on every input. Whether the answer is right, i.e. only what
// the full walk leaves alone is skipped, is prescan-differential.test.ts's. Test-only (and bench/prescan-micro.ts).

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
const ASCII = Array.from({ length: 95 }, (_, k) => String.fromCharCode(0x20 + k));

/**
 * A key word as an item's bytes may hold it, case aside: a quote or backslash escaped, a space also as `+` (query
 * strings are decoded), a character beyond ASCII as any UTF-8 sequence or `\u` escape (one or a surrogate pair), or
 * as an ASCII character it matches under Relay's Unicode case folding. An ASCII character written as `\u00XX` is
 * the `\u00` anchor's.
 */
function wordInBytes(word: string): RegExp {
  const parts = [...word].map((c) => {
    if (c === '"' || c === '\\') return `\\\\\\${c}`;
    if (c === ' ') return '[ +]';
    if (c.charCodeAt(0) < 0x80) return literal(c);
    const folds = ASCII.filter((a) => new RegExp(c, 'iu').test(a));
    return `(?:[\\x80-\\xff]{2,4}|\\\\u[0-9a-fA-F]{4}(?:\\\\u[0-9a-fA-F]{4})?${folds.map((a) => `|${literal(a)}`).join('')})`;
  });
  return new RegExp(parts.join(''), 'i');
}

/**
 * Card numbers (a 3–6, then 12 digits with a separator allowed between any two: `\s` as JSON or UTF-8 writes it, a
 * dash, `+`), SSNs and an IBAN's start, after a word boundary or after an escape (`\n4571…`: the decoded text has a
 * boundary there, the bytes the escape's letter).
 */
const NUMBER = new RegExp(
  String.raw`(?:\b|\\[bfnrt]|\\u[0-9a-fA-F]{4})` +
    String.raw`(?:[3-6](?:(?:[ +-]|\\[tnrfv]|\\u[0-9a-fA-F]{4}|[\x80-\xff]{2,3})?\d){12}|\d{3}-\d\d-\d{4}|[A-Z]{2}\d\d[a-zA-Z0-9]{11})`,
);
/** An e-mail address's "@" and domain, or URL credentials (EMAIL and URL_PASSWORD, cut where a prescan may stop). */
const AT =
  /[a-zA-Z0-9.!#$%&'*+/=?^_\x60{|}~-]@[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*\.[a-zA-Z]{2}|\/\/[a-zA-Z0-9%_.-]+:[a-zA-Z0-9%_.-]+@/;
/**
 * Whatever else may spell a match: `-----BEGIN`, a `\u00XX` escape, `\/`, ſ or K (Kelvin; UTF-8 or escaped), `%XX`,
 * and Relay's `^otp$` ending a JSON string or a query string's key or value.
 */
const OTHERS = [
  /-----BEGIN/,
  /\\u00/,
  /\\\//,
  /\xc5\xbf|\xe2\x84\xaa|\\u(?:017f|212a)/i,
  /%[0-9a-fA-F]{2}/,
  /otp["=&#]/i,
];

/** `text`: the bytes decoded as latin1, when the caller has them already (pipeline/item-text.ts shares one decode). */
export function createOraclePrescan(words: readonly string[]): (bytes: Buffer, text?: string) => boolean {
  const patterns = [...words.map(wordInBytes), NUMBER, AT, ...OTHERS];
  return (bytes, text = bytes.toString('latin1')) => patterns.some((re) => re.test(text));
}
