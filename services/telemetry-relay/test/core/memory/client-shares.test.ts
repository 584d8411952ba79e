// One client for the memory shares is one network (service-kit's clientNetwork, its table there), and the prefixes'
// config.
import { DEFAULT_PREFIXES, networkOf } from '@app/service-kit';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { createClientShares, createMemoryBudget } from '../../../src/core/memory/budget.ts';

describe('memory shares by network', () => {
  it('makes four addresses of one /64 share one memory share, and another /64 its own', () => {
    const budget = createMemoryBudget(100);
    const shares = createClientShares(budget, 40, networkOf(DEFAULT_PREFIXES));
    const holds = [1, 2, 3, 4].map((n) => shares.hold(`2001:db8:0:7::${n}`));
    expect(holds.map((hold) => hold.grow(10))).toEqual([undefined, undefined, undefined, undefined]);
    expect(shares.hold('2001:db8:0:7:ffff::1').grow(1)).toBe('client');
    expect(shares.hold('2001:db8:0:8::1').grow(40)).toBeUndefined();
    expect(shares.clients).toBe(2);
  });
});

describe('CLIENT_IPV4_PREFIX and CLIENT_IPV6_PREFIX', () => {
  const base = { ALLOWED_DSNS: 'https://k@o1.ingest.sentry.io/1', SPOOL_DIR: '/tmp/unused' };
  it('default to /32 and /64', () => {
    expect(loadConfig(base).clientPrefixes).toEqual({ v4: 32, v6: 64 });
    expect(loadConfig({ ...base, CLIENT_IPV4_PREFIX: '24', CLIENT_IPV6_PREFIX: '48' }).clientPrefixes).toEqual({
      v4: 24,
      v6: 48,
    });
  });

  it.each([
    ['CLIENT_IPV4_PREFIX', '33'],
    ['CLIENT_IPV4_PREFIX', '4'],
    ['CLIENT_IPV6_PREFIX', '129'],
    ['CLIENT_IPV6_PREFIX', '/64'],
  ])('refuses %s=%s, naming it', (name, value) => {
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(new RegExp(name));
  });
});
