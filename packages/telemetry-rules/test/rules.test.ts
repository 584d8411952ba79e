// The shared ignore-rule list itself, as both SDKs and the relay read it.
import { describe, expect, it } from 'vitest';
import { ignoreErrors } from '../src/index.ts';

const ignored = (text: string) => ignoreErrors.some((pattern) => pattern.test(text));

describe('ignoreErrors', () => {
  it.each([
    ['Script error.', 'ignores'],
    ['Script error', 'ignores'],
    ['Javascript error: Script error. on line 0', 'ignores'],
    ['ResizeObserver loop limit exceeded', 'ignores'],
    ['ResizeObserver loop completed with undelivered notifications.', 'ignores'],
    ['TypeError: Script error in module x', 'keeps'],
    ['Error: Script error.', 'keeps'],
    ['ResizeObserver loop limit exceeded twice', 'keeps'],
    // Redirect and not-found outcomes are not errors in this app; a name that looks like one is kept.
    ['RedirectSignal: /catalog/42', 'keeps'],
    ['TypeError: Cannot read properties of undefined', 'keeps'],
  ])('%j: %s it', (text, verdict) => {
    expect(ignored(text)).toBe(verdict === 'ignores');
  });
});
