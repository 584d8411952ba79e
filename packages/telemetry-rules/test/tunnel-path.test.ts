// The derived tunnel path is the one SDK 11's managed tunnel (`tunnel: true`) posts to: the same function of the DSN
// as @sentry/core's getTunnelPath, on written cases and on generated DSNs.
import { getTunnelPath } from '@sentry/core';
import { describe, expect, it } from 'vitest';
import { tunnelPathOf } from '../src/tunnel-path.ts';

const sdk = (dsn: string) => getTunnelPath(dsn);

describe('tunnelPathOf', () => {
  it.each([
    'https://examplePublicKey@o0.ingest.sentry.io/2',
    'https://devPublicKey@o0.ingest.sentry.io/1',
    'http://public@127.0.0.1:8969/1',
    'https://key:secret@sentry.example.com/1',
    'https://key@sentry.example.com/prefix/path/42',
    'https://key@sentry.example.com:9000/42abc',
    'https://key@[::1]:9000/7',
  ])('derives the SDK’s path for %s', (dsn) => {
    expect(tunnelPathOf(dsn)).toMatch(/^\/[0-9a-z]{1,7}$/);
    expect(tunnelPathOf(dsn)).toBe(sdk(dsn));
  });

  it.each([
    '',
    'not a dsn',
    'ftp://key@host/1',
    'https://host/1',
    'https://key@host/',
    'https://key@host/abc',
    'https://key@host/1/',
  ])('has no path for the invalid DSN %j', (dsn) => {
    expect(tunnelPathOf(dsn)).toBeUndefined();
    expect(sdk(dsn)).toBeUndefined();
  });

  it('agrees with the SDK on generated DSNs', () => {
    let seed = 38;
    const next = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const word = (n: number) => Array.from({ length: 1 + next(n) }, () => 'abcdef0123456789-_.'[next(19)]).join('');
    for (let i = 0; i < 2_000; i++) {
      const port = next(3) === 0 ? `:${1 + next(65_535)}` : '';
      const prefix = next(3) === 0 ? `${word(6)}/` : '';
      const dsn = `http${next(2) ? 's' : ''}://${word(32).replace(/[-.]/g, 'a')}@o${next(1e6)}.ingest.${word(8)}.io${port}/${prefix}${1 + next(1e7)}`;
      expect([dsn, tunnelPathOf(dsn)]).toEqual([dsn, sdk(dsn)]);
    }
  });
});
