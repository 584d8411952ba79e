// Proof that an item needs no scrubbing, before any JSON is parsed: false means no rule can match anywhere in its
// bytes. Each test is a superset of what a rule matches: key words in any case (password, auth, token, cookie,
// bearer…, and a `\u00XX` escape that could spell one), digit runs long enough for a card or shaped like an SSN,
// an IBAN's two capitals and two digits, "-----BEGIN", and around each "@" an e-mail address or URL credentials.
// A hit only means "parse and walk"; the rules decide. Costs measured in docs/decisions/012-data-scrubbing-as-relay.md
// and 021-sampled-key-word-scan.md.

import { foundWords, type TableShape, type TableWord, tableable, wordTable } from './byte-scan.ts';
import { isAsciiAlnum } from './chars.ts';
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
  // Relay matches otp only as a whole key (^otp$): in JSON, in quotes.
  '"otp"',
  'two_factor',
  'two-factor',
  'cookie',
  'bearer',
];

const escapeWord = (word: string) => word.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
/**
 * Card numbers: a 3–6 after a word boundary, then 12 more digits, a separator allowed between any two: any
 * whitespace Relay's `\s` knows, so also a JSON escape or a UTF-8 sequence. The leading `\b[3-6]` (every card
 * prefix Relay knows) makes it 5× cheaper than `\d(…){12}`.
 */
const CARD = /\b[3-6](?:(?:[ -]|\\[tnrfv]|\\u[0-9a-fA-F]{4}|[\x80-\xff]{2,3})?\d){12}/;
/** SSNs, an IBAN's start. */
const SSN_IBAN = [/\b\d{3}-\d\d-\d{4}/, /\b[A-Z]{2}\d\d[a-zA-Z0-9]{11}/];
/**
 * A word shorter than this, or starting with a quote, gets a regex of its own: in one alternation it slows V8's scan
 * for all of them (measured: 19 µs for the long words alone, 40–65 µs with "auth" or '"otp"' among them).
 */
const SHORT = 5;
const ownRegex = (word: string) => word.length < SHORT || !/^[a-z]/i.test(word);
/** What follows the "@" of an e-mail address (EMAIL's domain part), tried at one position. */
const EMAIL_DOMAIN = /[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*\.[a-zA-Z]{2}/y;
/** URL credentials' characters (URL_PASSWORD's user and password). */
const isCredential = (c: number) => isAsciiAlnum(c) || c === 0x25 || c === 0x5f || c === 0x2e || c === 0x2d;

/**
 * Whether `//user:password` ends at `at` and starts at or after `from` (URL_PASSWORD without its "@"), read backwards:
 * `/\/\/[a-zA-Z0-9%_.-]+:[a-zA-Z0-9%_.-]+$/` on the slice [from, at), without the slice and the regex's restart at
 * every "//" (512 steps an "@" on a text of "a@"; decision 045).
 */
export function endsWithUrlCredentials(text: string, at: number, from: number): boolean {
  let colon = at;
  while (colon > from && isCredential(text.charCodeAt(colon - 1))) colon--;
  if (colon === at || colon - 1 <= from || text[colon - 1] !== ':') return false;
  let user = colon - 1;
  while (user > from && isCredential(text.charCodeAt(user - 1))) user--;
  return user < colon - 1 && user - 2 >= from && text[user - 1] === '/' && text[user - 2] === '/';
}
const LOCAL_PART = /[a-zA-Z0-9.!#$%&'*+/=?^_\x60{|}~-]/;

const compileWords = (words: readonly string[]): RegExp[] => {
  const long = words.filter((word) => !ownRegex(word));
  return [
    ...(long.length > 0 ? [new RegExp(long.map(escapeWord).join('|'), 'i')] : []),
    ...words.filter(ownRegex).map((word) => new RegExp(escapeWord(word), 'i')),
  ];
};

/** Whether an "@" in `text` could start an e-mail address or end URL credentials. */
function atMayMatch(text: string): boolean {
  for (let at = text.indexOf('@'); at > 0; at = text.indexOf('@', at + 1)) {
    if (!LOCAL_PART.test(text[at - 1] as string)) continue;
    EMAIL_DOMAIN.lastIndex = at + 1;
    if (EMAIL_DOMAIN.test(text) || endsWithUrlCredentials(text, at, Math.max(0, at - 512))) return true;
  }
  return false;
}

/** The same proof for one decoded string (a key or a value) of a parsed item: the walk skips the rules when false. */
export function createTextCheck(words: readonly string[]): (text: string) => boolean {
  const keyWords = [...compileWords(words), /^otp$/i];
  const numbers = [/\b[3-6](?:[\s-]?\d){12}/, ...SSN_IBAN];
  return (text) => {
    for (const re of keyWords) if (re.test(text)) return true;
    for (const re of numbers) if (re.test(text)) return true;
    if (text.includes('-----BEGIN') || text.includes('\u017f') || text.includes('\u212a')) return true;
    return atMayMatch(text);
  };
}

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

/** Anchors the byte scan finds with the key words ('-' is common, so `includes('-----BEGIN')` cost 1.3 µs). */
const EXACT_ANCHORS = ['-----BEGIN', '\\u00'];

/** The prescan that walks every item (IP addresses and the strict rules match too much for a byte scan). */
export const ALWAYS: Prescan = Object.assign(() => true, { scanWords: [], scanShapes: [] });

export function createPrescan(words: readonly string[]): Prescan {
  // Key words and anchors by a sampling byte scan (byte-scan.ts); a word no table holds by its own regex, as before.
  const scanWords: TableWord[] = [
    ...words.filter(tableable).map((text) => ({ text })),
    ...EXACT_ANCHORS.map((text) => ({ text, exact: true })),
  ];
  // Bit 1: a word; bit 2: a shape.
  const table = wordTable(
    scanWords,
    NUMBER_SHAPES.map((shape) => ({ ...shape, bit: 2 })),
  );
  const keyWords = compileWords(words.filter((word) => !tableable(word)));
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
    // `\u00XX` could spell any trigger (in the scan); `\/` (PHP's json_encode writes it) could hide the `//` of
    // URL credentials.
    if (text.includes('\\/')) return true;
    for (const letter of FOLDING) if (text.includes(letter)) return true;
    // "@" is rare in events (a release like shop@1.4.2): look only around each one.
    return atMayMatch(text);
  };
  return Object.assign(prescan, { scanWords, scanShapes: NUMBER_SHAPES });
}
