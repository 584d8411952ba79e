// The shared ignore-rule list itself, as both SDKs and the relay read it.
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
  ])('ignores %j', (text) => {
    expect(ignored(text)).toBe(true);
  });

  it.each([
    'TypeError: Script error in module x',
    'Error: Script error.',
    'ResizeObserver loop limit exceeded twice',
    // Redirect and not-found outcomes are not errors in this app; a name that looks like one is kept.
    'RedirectSignal: /catalog/42',
    'TypeError: Cannot read properties of undefined',
  ])('keeps %j', (text) => {
    expect(ignored(text)).toBe(false);
  });
});
