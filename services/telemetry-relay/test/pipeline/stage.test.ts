// The stages' one shape (src/pipeline/stage.ts), and the list as the only place that says their order.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sourceFiles } from '@app/test-kit';
import { describe, expect, it } from 'vitest';
import { RelayError } from '../../src/core/errors.ts';
import { continued, guarded, proceed, refusal } from '../../src/pipeline/stage.ts';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const STAGES = fileURLToPath(new URL('../../src/pipeline/stages/', import.meta.url));

describe('a stage', () => {
  it.each([
    ['a value goes on', () => 7, { kind: 'continue', next: 7 }],
    [
      'a RelayError becomes a refusal, its headers kept',
      () => {
        throw new RelayError('rate_limited', 'later', { 'retry-after': '60' });
      },
      { kind: 'refuse', code: 'rate_limited', detail: 'later', headers: { 'retry-after': '60' } },
    ],
  ])('guarded: %s', (_name, run, outcome) => {
    expect(guarded(run)(undefined)).toEqual(outcome);
  });

  it('guarded: any other error is the relay failing, thrown as it is (a 500, not a refusal)', () => {
    const stage = guarded(() => {
      throw new TypeError('bug');
    });
    expect(() => stage(undefined)).toThrow(TypeError);
  });

  it.each([
    ['continue gives the next input', proceed('x'), 'x'],
    ['refuse throws the RelayError the routes answer', refusal('origin_not_allowed', 'no'), 403],
    ['drop cannot happen where nothing is sent', { kind: 'drop', reason: 'nothing_left' } as const, Error],
  ])('continued: %s', (_name, outcome, expected) => {
    if (typeof expected === 'string') return expect(continued(outcome)).toBe(expected);
    if (typeof expected === 'number') {
      return expect(() => continued(outcome)).toThrow(expect.objectContaining({ statusCode: expected }));
    }
    expect(() => continued(outcome)).toThrow(expected);
  });
});

describe('the list says the order', () => {
  it('no file header numbers a stage ("Stage 5", "6b"): pipeline/index.ts lists them', () => {
    const numbered = [...sourceFiles(SRC)]
      .filter(([, source]) => /^\/\/.*\b(?:[Ss]tages? \d|\d+b\b)/m.test(source.split('\nimport')[0] ?? ''))
      .map(([file]) => file);
    expect(numbered).toEqual([]);
  });

  it.each(readdirSync(STAGES))('stages/%s opens with one line saying what it is, and its stage with a doc', (file) => {
    const source = readFileSync(`${STAGES}${file}`, 'utf8');
    expect(source).toMatch(/^\/\/ .+\nimport /);
    expect(source).toMatch(/\/\*\* [^\n]+ \*\/\nexport (?:const|function) \w+Stage/);
  });
});
