// What counts as one client for the memory shares: an address reduced to its network prefix, and the prefixes' config.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { createClientShares, createMemoryBudget } from '../src/memory/budget.ts';
import { clientNetwork, DEFAULT_PREFIXES, networkOf, UNPARSABLE } from '../src/pipeline/client-network.ts';

describe('clientNetwork: one client is one network', () => {
  it.each([
    // address, prefixes, key
    ['198.51.100.7', DEFAULT_PREFIXES, '198.51.100.7'],
    ['198.51.100.7', { v4: 24, v6: 64 }, '198.51.100.0/24'],
    ['10.200.3.4', { v4: 8, v6: 64 }, '10.0.0.0/8'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', DEFAULT_PREFIXES, '2001:db8:1:2:0:0:0:0/64'],
    ['2001:db8:1:2::1', DEFAULT_PREFIXES, '2001:db8:1:2:0:0:0:0/64'],
    ['2001:DB8:1:2::FFFF', DEFAULT_PREFIXES, '2001:db8:1:2:0:0:0:0/64'],
    ['2001:db8:1:3::1', DEFAULT_PREFIXES, '2001:db8:1:3:0:0:0:0/64'],
    ['2001:db8:1:2::1', { v4: 32, v6: 48 }, '2001:db8:1:0:0:0:0:0/48'],
    ['2001:db8:1:2ff::1', { v4: 32, v6: 56 }, '2001:db8:1:200:0:0:0:0/56'],
    ['2001:db8::1', { v4: 32, v6: 128 }, '2001:db8:0:0:0:0:0:1'],
    ['fe80::1%eth0', DEFAULT_PREFIXES, 'fe80:0:0:0:0:0:0:0/64'],
    ['::1', DEFAULT_PREFIXES, '0:0:0:0:0:0:0:0/64'],
    ['::', DEFAULT_PREFIXES, '0:0:0:0:0:0:0:0/64'],
    // IPv4-mapped IPv6 counts as IPv4, in both spellings and under the v4 prefix.
    ['::ffff:198.51.100.7', DEFAULT_PREFIXES, '198.51.100.7'],
    ['::FFFF:c633:6407', DEFAULT_PREFIXES, '198.51.100.7'],
    ['0:0:0:0:0:ffff:198.51.100.7', { v4: 24, v6: 64 }, '198.51.100.0/24'],
    ['64:ff9b::198.51.100.7', DEFAULT_PREFIXES, '64:ff9b:0:0:0:0:0:0/64'],
  ])('%s under /%j → %s', (address, prefixes, key) => {
    expect(clientNetwork(address, prefixes)).toBe(key);
  });

  it.each([
    '',
    'unknown',
    '198.51.100',
    '198.51.100.256',
    '198.051.100.7',
    '1.2.3.4.5',
    '2001:db8::1::2',
    '2001:db8:1:2:3:4:5:6:7',
    '2001:db8:1:2:3:4:5:6::',
    '12345::1',
    'g::1',
    '::ffff:300.1.1.1',
    `2001:db8::${'1'.repeat(100)}`,
    '__proto__',
  ])('%j is no address: every such text shares one key', (text) => {
    expect(clientNetwork(text, DEFAULT_PREFIXES)).toBe(UNPARSABLE);
  });

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
