// Proof that an item needs no scrubbing, before any JSON is parsed: false means no rule can match in its bytes. Each
// test is a superset of a rule's matches in decoded strings (key words in any case, digit runs, SSN/IBAN/PEM shapes,
// e-mail and URL credentials, `\u`/`%XX`/`+` spellings); test/pii/prescan-differential.test.ts holds it to the walk.

import { foundWords, type TableShape, type TableWord, tableable, wordTable } from './byte-scan.ts';
import { NUMBER_SHAPES } from './number-shapes.ts';

/** The default rules' key words, lower-case (matched case-insensitively). */
export const TRIGGER_WORDS = [
  'password',
  'secret',
  'passwd',
  'api_key',
  'api-key',
  'apikey',
  'auth',
  'credentials',
  'mysql_pwd',
  'privatekey',
  'private_key',
  'private-key',
  'token',
  'two_factor',
  'two-factor',
  'cookie',
  'bearer',
];

const escapeWord = (word: string) => word.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
/**
 * Card numbers: a 3–6, then 12 more digits, a separator allowed between any two: any whitespace Relay's `\s` knows
 * (so also a JSON escape or a UTF-8 sequence) and `+` (a space, once a query string is decoded).
 */
const CARD_DIGITS = String.raw`[3-6](?:(?:[ +-]|\\[tnrfv]|\\u[0-9a-fA-F]{4}|[\x80-\xff]{2,3})?\d){12}`;
/** After a word boundary: every card prefix Relay knows; `\b[3-6]` is much cheaper than `\d(…){12}`. */
const CARD = new RegExp(String.raw`\b${CARD_DIGITS}`);
/** SSNs, an IBAN's start. */
const SSN = String.raw`\d{3}-\d\d-\d{4}`;
const IBAN_START = String.raw`[A-Z]{2}\d\d[a-zA-Z0-9]{11}`;
const SSN_IBAN = [new RegExp(String.raw`\b${SSN}`), new RegExp(String.raw`\b${IBAN_START}`)];
/**
 * The same numbers right after an escape: `"paid with\n4571…"` decodes to a boundary before the 4, where the bytes
 * have the escape's letter (or a `\uXXXX`'s last hex digit), a word character, so `\b` fails there.
 */
const AFTER_ESCAPE = new RegExp(String.raw`\\(?:[bfnrt]|u[0-9a-fA-F]{4})(?:${CARD_DIGITS}|${SSN}|${IBAN_START})`);
/** ſ and K (Kelvin) written as escapes (FOLDING below has their UTF-8 bytes). */
const FOLDING_ESCAPE = /\\u(?:017f|212a)/i;
/** A query string or form body is percent-decoded before its pairs are scrubbed: `%XX` may spell any character. */
const PERCENT = /%[0-9a-fA-F]{2}/;
/**
 * A word shorter than this, or not starting with a letter, gets a regex of its own: in one alternation it slows V8's
 * scan for all of them (two to three times the long words' cost alone).
 */
const SHORT = 5;
const ownRegex = (word: string) => word.length < SHORT || !/^[a-z]/i.test(word);
/** What follows the "@" of an e-mail address (EMAIL's domain part), tried at one position. */
const EMAIL_DOMAIN = /[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*\.[a-zA-Z]{2}/y;
const LOCAL_PART = /[a-zA-Z0-9.!#$%&'*+/=?^_\x60{|}~-]/;
/** URL_PASSWORD's user and password characters, `[a-zA-Z0-9%_.-]`, by code. */
const URL_CHAR = new Uint8Array(128);
for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789%_.-') URL_CHAR[c.charCodeAt(0)] = 1;

const compileWords = (words: readonly string[]): RegExp[] => {
  const long = words.filter((word) => !ownRegex(word));
  return [
    ...(long.length > 0 ? [new RegExp(long.map(escapeWord).join('|'), 'i')] : []),
    ...words.filter(ownRegex).map((word) => new RegExp(escapeWord(word), 'i')),
  ];
};

/** Whether `//user:password` (URL_PASSWORD without its "@") ends at `at`: the runs read backwards, each once. */
export function credentialsBefore(text: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && URL_CHAR[text.charCodeAt(i)] === 1) i--;
  if (i === at - 1 || text.charCodeAt(i) !== 0x3a) return false;
  const colon = i--;
  while (i >= 0 && URL_CHAR[text.charCodeAt(i)] === 1) i--;
  return i < colon - 1 && text.charCodeAt(i) === 0x2f && text.charCodeAt(i - 1) === 0x2f;
}

/** Whether an "@" in `text` could start an e-mail address or end URL credentials. */
function atMayMatch(text: string): boolean {
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    if (at === 0 || !LOCAL_PART.test(text[at - 1] as string)) continue;
    EMAIL_DOMAIN.lastIndex = at + 1;
    if (EMAIL_DOMAIN.test(text) || credentialsBefore(text, at)) return true;
  }
  return false;
}

/** Whether a word has a character beyond ASCII (such a word is matched as Relay's `(?i)` does, with `iu`). */
const beyondAscii = (word: string) => /[\u0080-\uffff]/.test(word);

/** The same proof for one decoded string (a key or a value) of a parsed item: the walk skips the rules when false. */
export function createTextCheck(words: readonly string[]): (text: string) => boolean {
  const keyWords = [
    ...compileWords(words.filter((word) => !beyondAscii(word))),
    ...words.filter(beyondAscii).map((word) => new RegExp(word.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'), 'iu')),
    /^otp$/i,
  ];
  const numbers = [/\b[3-6](?:[\s-]?\d){12}/, ...SSN_IBAN];
  return (value) => {
    // The rules search a value without its NUL characters (strings.ts: "\0" marks a redaction there).
    const text = value.includes('\0') ? value.replaceAll('\0', '') : value;
    for (const re of keyWords) if (re.test(text)) return true;
    for (const re of numbers) if (re.test(text)) return true;
    if (text.includes('-----BEGIN') || text.includes('\u017f') || text.includes('\u212a')) return true;
    return atMayMatch(text);
  };
}

/**
 * A word no table holds, as the bytes may spell it (matched with `i` on their latin1 decode): a quote or backslash
 * escaped, a space also as `+`, a character beyond ASCII as any UTF-8 sequence or `\u` escape, or as an ASCII letter
 * it folds to. ASCII written as `\u00XX` is the `\u00` anchor's; ſ and K anywhere are FOLDING's.
 */
function spelledWord(word: string): RegExp {
  let source = '';
  for (const c of word) {
    if (c === '"' || c === '\\') source += `\\\\\\${c}`;
    else if (c === ' ') source += '[ +]';
    else if (!beyondAscii(c)) source += escapeWord(c);
    else {
      const folds = Array.from({ length: 95 }, (_, k) => String.fromCharCode(0x20 + k)).filter((a) =>
        new RegExp(c, 'iu').test(a),
      );
      source += `(?:[\\x80-\\xff]{2,4}|\\\\u[0-9a-fA-F]{4}(?:\\\\u[0-9a-fA-F]{4})?${folds.map((a) => `|${escapeWord(a)}`).join('')})`;
    }
  }
  return new RegExp(source, 'i');
}

/** Whether the byte table can hold `word` as written: a quote or backslash in a JSON string is escaped. */
const tableWord = (word: string) => tableable(word) && !/["\\]/.test(word);

/** ſ and K (Kelvin) fold to s and k in Relay's (and our rules') Unicode case-insensitive matching: their UTF-8 bytes. */
const FOLDING = [Buffer.from('\u017f').toString('latin1'), Buffer.from('\u212a').toString('latin1')];

/**
 * A prescan: `text` is the bytes decoded as latin1, when the caller has them already (pipeline/item-text.ts shares
 * one decode); `scanned` says the caller has searched the bytes for `scanWords` and `scanShapes` (byte-scan.ts
 * `foundWords`, in a pass shared with other stages) and found no word, and `shaped` whether it found a shape; the
 * prescan does not search for them again, and runs the SSN and IBAN regexes only when `shaped`.
 */
export interface Prescan {
  (bytes: Buffer, text?: string, scanned?: boolean, shaped?: boolean): boolean;
  /** What the sampled byte scan looks for: the key words in any case, and anchors in their own case. */
  readonly scanWords: readonly TableWord[];
  /** The SSN and IBAN shapes (number-shapes.ts). */
  readonly scanShapes: readonly TableShape[];
}

/** Anchors the byte scan finds with the key words ('-' is common, so `includes('-----BEGIN')` is dear on its own). */
const EXACT_ANCHORS = ['-----BEGIN', '\\u00'];
/**
 * Relay's `^otp$` (a whole key or value) as the bytes end it, in any case: a JSON string, or a query string's pair
 * (`otp=`, `=otp&`, `=otp#`). Cookie pairs need none: every field read as cookies has "cookie" in its name.
 */
const OTP_ENDS = ['otp"', 'otp=', 'otp&', 'otp#'];

/** The prescan that walks every item (IP addresses and the strict rules match too much for a byte scan). */
export const ALWAYS: Prescan = Object.assign(() => true, { scanWords: [], scanShapes: [] });

export function createPrescan(words: readonly string[]): Prescan {
  // Key words and anchors by a sampling byte scan (byte-scan.ts); a word no table holds by its own regex. A space
  // is also `+` (query strings are decoded).
  const scanWords: TableWord[] = [
    ...words.filter(tableWord).map((text) => ({ text })),
    ...words
      .filter((word) => tableWord(word) && word.includes(' '))
      .map((text) => ({ text: text.replaceAll(' ', '+') })),
    ...OTP_ENDS.map((text) => ({ text })),
    ...EXACT_ANCHORS.map((text) => ({ text, exact: true })),
  ];
  // Bit 1: a word; bit 2: a shape.
  const table = wordTable(
    scanWords,
    NUMBER_SHAPES.map((shape) => ({ ...shape, bit: 2 })),
  );
  const others = words.filter((word) => !tableWord(word));
  const keyWords = [
    ...compileWords(others.filter((word) => !beyondAscii(word) && !/["\\ ]/.test(word))),
    ...others.filter((word) => beyondAscii(word) || /["\\ ]/.test(word)).map(spelledWord),
  ];
  const prescan = (bytes: Buffer, text = bytes.toString('latin1'), scanned = false, shaped = true) => {
    if (!scanned) {
      const found = foundWords(bytes, table);
      if ((found & 1) !== 0) return true;
      shaped = (found & 2) !== 0;
    }
    // latin1: one byte a character, the cheapest string to scan; every anchor is ASCII.
    for (const re of keyWords) if (re.test(text)) return true;
    if (CARD.test(text)) return true;
    if (shaped) for (const re of SSN_IBAN) if (re.test(text)) return true;
    // A regex that starts with a backslash or "%" costs far more than `includes` on a clean event (decision 046).
    if (text.includes('\\')) {
      // `\u00XX` could spell any trigger (in the scan); `\/` (PHP's json_encode writes it) could hide the `//` of URL
      // credentials; an escape's letter before a number hides the boundary the rules see.
      if (text.includes('\\/') || AFTER_ESCAPE.test(text) || FOLDING_ESCAPE.test(text)) return true;
    }
    if (text.includes('%') && PERCENT.test(text)) return true;
    for (const letter of FOLDING) if (text.includes(letter)) return true;
    // "@" is rare in events (a release like shop@1.4.2): look only around each one.
    return atMayMatch(text);
  };
  return Object.assign(prescan, { scanWords, scanShapes: NUMBER_SHAPES });
}
