// The prescan's shortcuts (the sampled byte scan for key words, the number shapes) against the same prescan written
// as plain regexes over the latin1 decode (prescan-oracle.ts): the prescan must give its answer on every input.
// Inputs: random event-like JSON seeded with fragments of every trigger, in mixed case, escaped, split and at the
// edges of the payload. Whether the answer means what the rules mean is prescan-differential.test.ts's.
import { nearMisses, type SeededRandom, seededRandom } from '@app/test-kit';
import { describe, expect, it } from 'vitest';
import { hasWord, tableable, wordTable } from '../../src/pii/byte-scan.ts';
import { createPrescan, TRIGGER_WORDS } from '../../src/pii/prescan.ts';
import { createOraclePrescan } from './prescan-oracle.ts';

type Random = SeededRandom;

/** Every ASCII letter in a random case. */
const mixedCase = (r: Random, text: string) =>
  [...text].map((c) => (r.next(2) === 0 ? c.toUpperCase() : c.toLowerCase())).join('');

/** A trigger, or a near miss of one (a letter cut, swapped or replaced), spelled in one of the ways JSON allows. */
function fragment(r: Random, words: readonly string[]): string {
  const word = r.pick(words);
  const cut = r.next(word.length);
  const spellings = [
    word,
    mixedCase(r, word),
    `${word.slice(0, cut)}\\u00${word.charCodeAt(cut).toString(16).padStart(2, '0')}${word.slice(cut + 1)}`,
    `${word.slice(0, cut)}\u017f${word.slice(cut + 1)}`, // ſ
    `${word.slice(0, cut)}\u212a${word.slice(cut + 1)}`, // K
    `${word.slice(0, cut)}${String.fromCharCode(word.charCodeAt(cut) ^ 0x20)}${word.slice(cut + 1)}`,
    ...nearMisses(word, cut),
  ];
  const others = [
    '4111 1111 1111 1111',
    '4111\\t1111\\t1111\\t111',
    '078-05-1120',
    '078-05-112',
    'DE89370400440532013000',
    'DE8937040044053',
    '-----BEGIN',
    '----BEGIN',
    'redis:\\/\\/u:p@host',
    'jane@example.com',
    'shop@1.4.2',
    '@',
    'https://u:p@example.com',
    '@//u:p@h',
    // After an escape, a number has the boundary the decoded text gives it; a query string is decoded.
    '\\n4571234567890111',
    '\\t078-05-1120',
    '\\rDE89370400440532013000',
    '\\u20284571234567890111',
    '\\n457123456789011',
    '4571+2345+6789+0111',
    '%41',
    '%4',
    '\\u017F',
    '\\u212a',
    '\\u0170',
    'otp=',
    'OTP&',
    'otp#',
    'otp"',
    'otp_',
    'my+field',
  ];
  const iban = `${r.pick(['DE', 'GB', 'Fr'])}${r.next(100)}${'0532013000ABCDE_x'.slice(r.next(6), 6 + r.next(12))}`;
  const kind = r.next(4);
  return kind === 0 ? r.pick(others) : kind === 1 ? iban : r.pick(spellings);
}

const FILLER = ['{"', '":"', '","', '"}', '[', ']', ',', ':', ' ', '\\n', '\\"', 'a', 'Q', '7', '_', '-', '/', 'é'];

function payload(r: Random, words: readonly string[]): Buffer {
  const parts: string[] = [];
  for (let i = r.next(12); i >= 0; i--) {
    parts.push(r.next(2) === 0 ? fragment(r, words) : r.pick(FILLER).repeat(1 + r.next(4)));
  }
  return Buffer.from(parts.join(''));
}

/** Words a project may add as "Additional Sensitive Fields": short, long, odd characters, beyond ASCII. */
const EXTRA_WORDS = [
  [],
  ['pin'],
  ['x-api', 'Session_ID'],
  ['ab'],
  ['über'],
  ['my field', 'c'],
  ['a.b*c'],
  ['a"b', 'x\\y', 'ſt'],
];

describe('the prescan against its regex oracle', () => {
  it.each(EXTRA_WORDS.map((extra) => [extra.join(',') || 'the defaults', extra]))(
    'answers as the old prescan on 20000 random payloads (%s)',
    (_name, extra) => {
      const words = [...TRIGGER_WORDS, ...extra];
      const prescan = createPrescan(words);
      const oracle = createOraclePrescan(words);
      const r = seededRandom(29 + extra.length);
      const counts = { walk: 0, clean: 0 };
      for (let i = 0; i < 20_000; i++) {
        const bytes = payload(r, words);
        const expected = oracle(bytes);
        if (prescan(bytes) !== expected) {
          expect.fail(`prescan ${!expected} where the oracle says ${expected}: ${JSON.stringify(bytes.toString())}`);
        }
        counts[expected ? 'walk' : 'clean']++;
      }
      // Both answers are exercised, so agreement means something.
      expect(counts.walk).toBeGreaterThan(2000);
      expect(counts.clean).toBeGreaterThan(2000);
    },
  );

  it('finds a key word at every offset, in every case, at both ends of the payload', () => {
    const table = wordTable(TRIGGER_WORDS.filter(tableable));
    for (const word of TRIGGER_WORDS) {
      for (let before = 0; before < 8; before++) {
        for (const spelled of [word, word.toUpperCase(), mixedCase(seededRandom(before), word)]) {
          const text = `${'x'.repeat(before)}${spelled}`;
          expect(hasWord(Buffer.from(text), table), text).toBe(true);
          expect(hasWord(Buffer.from(`${text}y`), table), `${text}y`).toBe(true);
          // One letter short: not the word.
          expect(hasWord(Buffer.from(text.slice(0, -1)), table), text.slice(0, -1)).toBe(false);
        }
      }
    }
  });

  // A table of cases, alike in shape to other functions' tables on purpose (`duplicates` pairs them).
  it.each([
    [
      'the bench event without secrets',
      '{"message":"Cannot read properties of undefined","release":"shop@1.4.2"}',
      false,
    ],
    ['a key word in capitals', '{"extra":{"PASSWORD":"x"}}', true],
    ['"otp" as a key', '{"OTP":"1"}', true],
    ['otp inside a word', '{"hotpot":"1"}', false],
    ["otp as a query string's key", '{"query_string":"a=1&otp=2"}', true],
    ['a card right after a \\n escape', '{"message":"paid with\\n4571234567890111"}', true],
    ['a card right after a \\u2028 escape', '{"message":"paid with\\u20284571234567890111"}', true],
    ['a card number in a query string, spaces as +', '{"url":"/?card=4571+2345+6789+0111"}', true],
    ['a percent escape (a query string is decoded)', '{"url":"/?pass%77ord=x"}', true],
    ['ſ written as an escape', '{"pa\\u017f\\u017fword":"x"}', true],
    ['no escape before a number', '{"message":"paid with 12345"}', false],
    ['auth at the very end', 'AUTH', true],
    ['a latin1 letter inside a word', '{"p\u00e0ssword":"x"}', false],
  ])('%s', (_name, json, walk) => {
    expect(createPrescan(TRIGGER_WORDS)(Buffer.from(json))).toBe(walk);
  });
});
