// Each hand-written matcher against the regex it replaced (decision 045): the same matches, the same spans, on text
// generated from the pattern's own pieces (its literals, near misses, the characters its classes and `\b` turn on,
// ſ and K that fold under `iu`), shrunk to a short counterexample when one differs. Fixed seed; FC_RUNS=… for more.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emailPattern, passwordKeyPattern, pemPattern } from '../../src/pii/matchers.ts';
import { regexPattern } from '../../src/pii/pattern.ts';
import { EMAIL, PASSWORD_KEY, PEM_KEY, USER_PATH } from '../../src/pii/patterns.ts';
import { credentialsBefore } from '../../src/pii/prescan.ts';
import { userPathPattern } from '../../src/pii/user-path.ts';
import { globsToRegExp, linearAsRegExp } from '../../src/pipeline/inbound-filters/glob.ts';
import { globAutomaton } from '../../src/pipeline/inbound-filters/glob-automaton.ts';
import { tridentWithRv } from '../../src/pipeline/inbound-filters/legacy-browsers.ts';

const RUNS = Number(process.env.FC_RUNS ?? 3000);
const settings = { seed: 45, numRuns: RUNS };
/** A text of up to `max` pieces. */
const textOf = (pieces: readonly string[], max = 24) =>
  fc.array(fc.constantFrom(...pieces), { maxLength: max }).map((parts) => parts.join(''));

const ODD = ['\u017f', '\u212a', '\u00e9', '\0', '\ud83d\ude00', '\ud800', '_', '1'];

const cases = [
  {
    name: 'EMAIL',
    ours: emailPattern,
    regex: regexPattern('EMAIL', EMAIL, 'u'),
    group: 0,
    pieces: ['a', 'Zb', '0', '.', '..', '@', '-', '!', '+', ' ', 'com', 'x@y.com', 'a.b', 'io', '.co1', '-x', ...ODD],
  },
  {
    name: 'PEM_KEY',
    ours: pemPattern,
    regex: regexPattern('PEM_KEY', PEM_KEY, 'u'),
    group: 1,
    pieces: [
      '-----BEGIN',
      '-----END',
      ' RSA',
      ' ',
      'PRIVATE KEY',
      'PUBLIC KEY',
      ' PRIVATE KEY-----',
      '-----',
      '-',
      '\r',
      '\n',
      '\r\n',
      '\t',
      'A',
      'abc',
      'KEY',
      ...ODD,
    ],
  },
  {
    name: 'USER_PATH',
    ours: userPathPattern,
    regex: regexPattern('USER_PATH', USER_PATH, 'ui'),
    group: 1,
    pieces: [
      'C:',
      'c:',
      '/',
      '\\',
      'users',
      'Users',
      'u\u017fers',
      'home',
      'documents and settings',
      'profiles',
      'PROFILE\u017f',
      'a',
      'bob',
      ' ',
      '\r',
      '\n',
      '.',
      ':',
      ...ODD,
    ],
  },
];

describe('hand-written matchers find what the regexes they replace find', () => {
  it.each(cases)('$name: the same spans on generated text', ({ ours, regex, group, pieces }) => {
    fc.assert(
      fc.property(textOf(pieces), (text) => {
        expect(ours.spans(text, group)).toEqual(regex.spans(text, group));
        expect(ours.test(text)).toBe(regex.test(text));
      }),
      settings,
    );
  });

  it('PASSWORD_KEY: the same answer on generated keys and values', () => {
    const regex = regexPattern('PASSWORD_KEY', PASSWORD_KEY, 'ui');
    const pieces = ['token', 'TOKEN', 'to\u212aen', 'tok', 'en', ':', '=', ' ', '\n', '\t', 'x', 'otp', 'auth', ...ODD];
    fc.assert(
      fc.property(textOf(pieces), (text) => {
        expect(passwordKeyPattern.test(text)).toBe(regex.test(text));
      }),
      settings,
    );
  });

  it("the prescan's URL credentials before an @, as the regex on the text before it", () => {
    const pieces = ['//', '/', ':', 'a', 'B', '0', '%', '_', '.', '-', '@', ' ', 'x'.repeat(100), ...ODD];
    const regex = /\/\/[a-zA-Z0-9%_.-]+:[a-zA-Z0-9%_.-]+$/;
    fc.assert(
      fc.property(textOf(pieces, 30), fc.nat(), (text, n) => {
        const at = text.length === 0 ? 0 : n % (text.length + 1);
        expect(credentialsBefore(text, at)).toBe(regex.test(text.slice(0, at)));
      }),
      settings,
    );
  });

  it('legacy browsers: Trident then rv: on its line, as /Trident\\/\\d.*rv:\\d/', () => {
    const pieces = ['Trident/', 'Trident/7', '1', 'rv:', 'rv:1', 'x', ' ', '\n', '\r', '\u2028', '\u2029', ';'];
    fc.assert(
      fc.property(textOf(pieces), (ua) => {
        expect(tridentWithRv(ua)).toBe(/Trident\/\d.*rv:\d/.test(ua));
      }),
      settings,
    );
  });

  it('globs: the automaton decides as the regex on generated globs and texts', () => {
    const globPieces = ['*', '?', 'a', 'B', '{', '}', ',', '[ab]', '[!a]', '[a-c]', '\\*', '\\', '.', '\u00e9', 'k'];
    const textPieces = ['a', 'b', 'A', 'B', 'c', '*', '.', '\u00e9', '\u00c9', '\u00df', '\u017f', '\u212a', 'k', 'K'];
    fc.assert(
      fc.property(
        fc.array(textOf(globPieces, 8), { minLength: 1, maxLength: 3 }),
        textOf(textPieces, 12),
        (globs, text) => {
          expect(globAutomaton(globs)(text)).toBe(globsToRegExp(globs).test(text));
        },
      ),
      settings,
    );
  });

  // A table of cases, alike in shape to other functions' tables on purpose (`duplicates` pairs them).
  it.each([
    ['*healthcheck*', true],
    ['*/health', true],
    ['Loading chunk *', true],
    ['*https://react.dev/errors/{418,419}*', true],
    ['*a*b', false],
    ['a*b*', false],
    ['*{a*,b}', false],
    ['*a*b*c*', false],
  ])('glob %s runs as a regex: %s', (glob, linear) => {
    expect(linearAsRegExp(glob)).toBe(linear);
  });
});
