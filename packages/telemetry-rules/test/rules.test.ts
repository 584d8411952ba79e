import { describe, expect, it } from 'vitest';
import { ignoreErrors } from '../src/index.ts';

const ignored = (text: string) => ignoreErrors.some((pattern) => pattern.test(text));

describe('ignoreErrors', () => {
  it.each([
    'Script error.',
    'Script error',
    'Javascript error: Script error. on line 0',
    'ResizeObserver loop limit exceeded',
    'ResizeObserver loop completed with undelivered notifications.',
    'RedirectSignal: /catalog/42',
    'NotFoundSignal',
  ])('ignores %j', (text) => {
    expect(ignored(text)).toBe(true);
  });

  it.each([
    'TypeError: Script error in module x',
    'Error: Script error.',
    'ResizeObserver loop limit exceeded twice',
    'RedirectSignalling failed',
    'TypeError: Cannot read properties of undefined',
  ])('keeps %j', (text) => {
    expect(ignored(text)).toBe(false);
  });
});
