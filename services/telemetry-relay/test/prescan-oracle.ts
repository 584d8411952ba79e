// The prescan as it was before the one-pass byte scan (src/pii/byte-scan.ts), kept as the oracle the new one is
// checked against in prescan.test.ts: the new one must say "walk" wherever this one does. Test-only.

const escapeWord = (word: string) => word.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
/**
 * Card numbers (a 3–6 after a word boundary, then 12 more digits, a space or dash allowed between any two), SSNs,
 * an IBAN's start. A separator may be any whitespace Relay's `\s` knows, so also a JSON escape or a UTF-8 sequence. The leading `\b[3-6]` (every card prefix Relay knows) makes it 5× cheaper than `\d(…){12}`.
 */
const NUMBERS = [
  /\b[3-6](?:(?:[ -]|\\[tnrfv]|\\u[0-9a-fA-F]{4}|[\x80-\xff]{2,3})?\d){12}/,
  /\b\d{3}-\d\d-\d{4}/,
  /\b[A-Z]{2}\d\d[a-zA-Z0-9]{11}/,
];
/**
 * A word shorter than this, or starting with a quote, gets a regex of its own: in one alternation it slows V8's scan
 * for all of them (measured: 19 µs for the long words alone, 40–65 µs with "auth" or '"otp"' among them).
 */
const SHORT = 5;
const ownRegex = (word: string) => word.length < SHORT || !/^[a-z]/i.test(word);
/** What follows the "@" of an e-mail address (EMAIL's domain part), tried at one position. */
const EMAIL_DOMAIN = /[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*\.[a-zA-Z]{2}/y;
/** URL credentials ending at an "@" (URL_PASSWORD without the "@"), in the text just before it. */
const URL_CREDENTIALS = /\/\/[a-zA-Z0-9%_.-]+:[a-zA-Z0-9%_.-]+$/;
/** ſ and K (Kelvin) fold to s and k in Relay's (and our rules') Unicode case-insensitive matching: their UTF-8 bytes. */
const FOLDING = [Buffer.from('\u017f').toString('latin1'), Buffer.from('\u212a').toString('latin1')];
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
    if (EMAIL_DOMAIN.test(text) || URL_CREDENTIALS.test(text.slice(Math.max(0, at - 512), at))) return true;
  }
  return false;
}

/** `text`: the bytes decoded as latin1, when the caller has them already (pipeline/item-text.ts shares one decode). */
export function createOraclePrescan(words: readonly string[]): (bytes: Buffer, text?: string) => boolean {
  const keyWords = compileWords(words);
  return (bytes, text = bytes.toString('latin1')) => {
    // latin1: one byte a character, the cheapest string to scan; every anchor is ASCII.
    for (const re of keyWords) if (re.test(text)) return true;
    for (const re of NUMBERS) if (re.test(text)) return true;
    // `\u00XX` could spell any trigger; `\/` (PHP's json_encode writes it) could hide the `//` of URL credentials.
    if (text.includes('-----BEGIN') || text.includes('\\u00') || text.includes('\\/')) return true;
    for (const letter of FOLDING) if (text.includes(letter)) return true;
    // "@" is rare in events (a release like shop@1.4.2): look only around each one.
    return atMayMatch(text);
  };
}
