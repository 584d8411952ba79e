// Matching events against the ignore rules: the texts a rule is tried on, the literals and the prefilter that
// skips events no rule can match.
import { describe, expect, it } from 'vitest';
import { candidateTexts, ignoreRules, matchEvent, matchIgnoreRule } from '../src/index.ts';
import { createPrefilter } from '../src/prefilter.ts';

const exception = (...values: Array<{ type?: string; value?: string }>) => ({ exception: { values } });

describe('candidateTexts', () => {
  it.each([
    ['a string message', { message: 'boom' }, ['boom']],
    ['a message object', { message: { formatted: 'a 1', message: 'a %s' } }, ['a 1']],
    ['a logentry', { logentry: { message: 'x %s' } }, ['x %s']],
    [
      'the last exception',
      exception({ type: 'Error', value: 'inner' }, { type: 'TypeError', value: 'outer' }),
      ['outer', 'TypeError: outer'],
    ],
    ['a value without type', exception({ value: 'only value' }), ['only value']],
    ['a type without value', exception({ type: 'AbortError' }), ['AbortError']],
    ['nothing usable', { exception: { values: 'nope' }, message: 42 }, []],
    ['not an object', 'Script error.', []],
  ])('%s', (_name, event, texts) => {
    expect(candidateTexts(event)).toEqual(texts);
  });
});

describe('matchEvent', () => {
  it.each([
    [{ message: 'Script error.' }, 'cross-origin-script-error'],
    [exception({ type: 'Error', value: 'ResizeObserver loop limit exceeded' }), 'resize-observer-loop-limit'],
    [
      exception({ type: 'Error', value: 'ResizeObserver loop completed with undelivered notifications.' }),
      'resize-observer-undelivered',
    ],
  ])('drops %j by rule %s', (event, id) => {
    expect(matchEvent(event)?.id).toBe(id);
  });

  it.each([
    [exception({ type: 'TypeError', value: 'x is undefined' })],
    // a cause is not the error: only the last exception counts, as in the SDK
    [exception({ type: 'Error', value: 'Script error.' }, { type: 'Error', value: 'render failed' })],
    [{ message: 'Script error. Please retry' }],
    [{ transaction: 'Script error.' }],
  ])('keeps %j', (event) => {
    expect(matchEvent(event)).toBeUndefined();
  });

  it('takes a custom rule list', () => {
    const rules = [{ id: 'x', reason: 'test', pattern: /^boom$/, literals: ['boom'] }];
    expect(matchIgnoreRule(['boom'], rules)?.id).toBe('x');
    expect(matchIgnoreRule(['Script error.'], rules)).toBeUndefined();
  });
});

describe('rule literals', () => {
  const examples: Record<string, string[]> = {
    'cross-origin-script-error': ['Script error.', 'Script error', 'Javascript error: Script error. on line 0'],
    'resize-observer-loop-limit': ['ResizeObserver loop limit exceeded'],
    'resize-observer-undelivered': ['ResizeObserver loop completed with undelivered notifications.'],
  };
  it.each(ignoreRules.map((rule) => [rule.id, rule] as const))(
    '%s: every example it matches holds a literal',
    (id, rule) => {
      const texts = examples[id] ?? [];
      expect(texts.length).toBeGreaterThan(0);
      for (const text of texts) {
        expect(rule.pattern.test(text)).toBe(true);
        expect(rule.literals.some((literal) => text.includes(literal))).toBe(true);
      }
    },
  );
});

describe('createPrefilter', () => {
  const prefilter = createPrefilter(ignoreRules);
  const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));

  it('passes events holding a literal, escaped or not, and skips the rest', () => {
    expect(prefilter(bytes({ message: 'Script error.' }))).toBe(true);
    expect(prefilter(Buffer.from('{"message":"\\u0053cript error."}'))).toBe(true);
    expect(prefilter(bytes(exception({ type: 'TypeError', value: 'x is undefined' })))).toBe(false);
    expect(prefilter(new Uint8Array(bytes({ message: 'ResizeObserver loop completed' })))).toBe(true);
  });

  it('refuses literals it cannot find in JSON bytes', () => {
    expect(() => createPrefilter([{ id: 'q', reason: '', pattern: /"/, literals: ['a"b'] }])).toThrow(
      /cannot be searched/,
    );
    expect(() => createPrefilter([{ id: 'i', reason: '', pattern: /x/i, literals: ['x'] }])).toThrow(
      /case-insensitive/,
    );
    expect(() => createPrefilter([{ id: 'e', reason: '', pattern: /x/, literals: [] }])).toThrow(/no literals/);
  });

  // Property: the prefilter never changes a decision — whenever a full parse finds a rule, the prefilter said "maybe".
  it('never hides an event a full parse would drop (random events)', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pieces = [
      'Script error',
      '.',
      ' on line 0',
      'Javascript error: ',
      'ResizeObserver loop limit exceeded',
      'ResizeObserver loop completed with undelivered notifications',
      ': ',
      'TypeError',
      '\u0007',
      'é',
      '"',
      '\\',
      'x',
    ];
    const text = () =>
      Array.from({ length: Math.floor(random() * 4) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
    let dropped = 0;
    for (let i = 0; i < 3000; i++) {
      const event =
        random() < 0.5
          ? { message: text() }
          : exception({ type: text(), value: text() }, { type: text(), value: text() });
      const rule = matchEvent(event);
      if (rule) {
        dropped++;
        expect(prefilter(bytes(event))).toBe(true);
      }
    }
    expect(dropped).toBeGreaterThan(50);
  });
});
