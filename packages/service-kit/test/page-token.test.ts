// The page token both services share: signed by the web, verified by the relay in constant time, expiry and skew.
import { describe, expect, it } from 'vitest';
import { signPageToken, verifyPageToken } from '../src/page-token.ts';

const SECRET = 'x'.repeat(32);
const NOW = 1_800_000_000;
const options = { skewSeconds: 60, maxTtlSeconds: 3600 };
const check = (token: string | undefined, key = 'abc') => verifyPageToken(token, SECRET, key, NOW, options);

describe('verifyPageToken', () => {
  it.each<[string, string | undefined, string]>([
    ['a fresh token', signPageToken(SECRET, 'abc', NOW + 600), 'ok'],
    ['one expiring now', signPageToken(SECRET, 'abc', NOW), 'ok'],
    ['one expired within the skew', signPageToken(SECRET, 'abc', NOW - 60), 'ok'],
    ['one expired past the skew', signPageToken(SECRET, 'abc', NOW - 61), 'expired'],
    ['one living longer than allowed', signPageToken(SECRET, 'abc', NOW + 3600 + 61), 'bad'],
    ['one for another key', signPageToken(SECRET, 'other', NOW + 600), 'bad'],
    ['one signed with another secret', signPageToken('y'.repeat(32), 'abc', NOW + 600), 'bad'],
    ['an expired forgery (a forgery first)', signPageToken('y'.repeat(32), 'abc', NOW - 600), 'bad'],
    ['a signature cut short', signPageToken(SECRET, 'abc', NOW + 600).slice(0, -1), 'malformed'],
    ['no expiry', `.${signPageToken(SECRET, 'abc', NOW).split('.')[1]}`, 'malformed'],
    ['a huge text', 'a'.repeat(10_000), 'malformed'],
    ['an empty header', '', 'missing'],
    ['no header', undefined, 'missing'],
  ])('%s: %s', (_name, token, expected) => {
    const result = check(token);
    expect(result.ok ? 'ok' : result.problem).toBe(expected);
    if (!result.ok) expect(result.detail).toMatch(/x-page-token/);
  });

  it('refuses a token whose expiry was moved, whatever the expiry', () => {
    const [, signature] = signPageToken(SECRET, 'abc', NOW + 600).split('.');
    for (const expiry of [NOW + 601, NOW + 599, NOW + 6000, 0]) expect(check(`${expiry}.${signature}`).ok).toBe(false);
  });
});
