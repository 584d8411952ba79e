// Who the client is, for both services: the address behind the trusted proxies, and the network that is one client.
import { describe, expect, it } from 'vitest';
import {
  clientAddress,
  clientNetwork,
  DEFAULT_PREFIXES,
  networkOf,
  readEnv,
  readTrustedProxyHops,
  requestClientAddress,
  UNPARSABLE,
} from '../src/index.ts';

const LONG_ZONE = `fe80::1%${'z'.repeat(15_000)}`;

describe('clientAddress and its network: one table for the relay and the web', () => {
  it.each([
    // name, peer, X-Forwarded-For, trusted hops, address, network under the default prefixes (/32, /64)
    ['no trusted hop: the peer, whatever the header says', '10.0.0.2', '203.0.113.5', 0, '10.0.0.2', '10.0.0.2'],
    ['one hop: the address the proxy saw', '10.0.0.2', '198.51.100.66, 203.0.113.5', 1, '203.0.113.5', '203.0.113.5'],
    ['two hops', '10.0.0.2', '198.51.100.66, 203.0.113.5, 10.0.0.9', 2, '203.0.113.5', '203.0.113.5'],
    ['more hops than addresses: the farthest', '10.0.0.2', '203.0.113.5', 3, '203.0.113.5', '203.0.113.5'],
    ['trusted hop but no header: the peer, unmapped', '::ffff:10.0.0.2', undefined, 1, '10.0.0.2', '10.0.0.2'],
    [
      'repeated headers read as one list',
      '10.0.0.2',
      ['198.51.100.66', '203.0.113.5'],
      1,
      '203.0.113.5',
      '203.0.113.5',
    ],
    ['empty entries skipped', '10.0.0.2', '198.51.100.66, , 203.0.113.5,', 2, '198.51.100.66', '198.51.100.66'],
    ['IPv6: its /64', '10.0.0.2', '2001:db8:1:2::1', 1, '2001:db8:1:2::1', '2001:db8:1:2:0:0:0:0/64'],
    ['an IPv4-mapped entry comes out as IPv4', '10.0.0.2', '::ffff:203.0.113.5', 1, '203.0.113.5', '203.0.113.5'],
    // Past the trusted hops the entry is the client's own text: what is no IP address counts as the peer.
    ['an entry that is no address: the peer', '10.0.0.2', '<'.repeat(15_000), 3, '10.0.0.2', '10.0.0.2'],
    ['a hostname: the peer', '10.0.0.2', 'shop.example.com', 1, '10.0.0.2', '10.0.0.2'],
    ['an IPv6 entry with a 15 000-character zone: the peer', '10.0.0.2', LONG_ZONE, 3, '10.0.0.2', '10.0.0.2'],
    ['an IPv4-mapped entry with a zone: the peer', '10.0.0.2', '::ffff:203.0.113.5%eth0', 1, '10.0.0.2', '10.0.0.2'],
    ['a peer with a zone keys its network', 'fe80::1%eth0', undefined, 0, 'fe80::1%eth0', 'fe80:0:0:0:0:0:0:0/64'],
    ['no peer (a closed socket): the one unparsable key', '', undefined, 0, '', UNPARSABLE],
  ])('%s', (_name, peer, forwardedFor, hops, address, network) => {
    expect(clientAddress(peer, forwardedFor, hops)).toBe(address);
    // The same, read off a request as it arrived (no socket: a closed one).
    const socket = peer === '' ? undefined : { remoteAddress: peer };
    const headers = forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor };
    expect(requestClientAddress({ socket, headers }, hops)).toBe(address);
    expect(clientNetwork(address, DEFAULT_PREFIXES)).toBe(network);
  });
});

describe('clientNetwork: one client is one network', () => {
  // A table: its rows are alike on purpose (duplicates pairs its halves).
  it.each([
    // address, prefixes, key
    ['198.51.100.7', { v4: 24, v6: 64 }, '198.51.100.0/24'],
    ['10.200.3.4', { v4: 8, v6: 64 }, '10.0.0.0/8'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', DEFAULT_PREFIXES, '2001:db8:1:2:0:0:0:0/64'],
    ['2001:DB8:1:2::FFFF', DEFAULT_PREFIXES, '2001:db8:1:2:0:0:0:0/64'],
    ['2001:0db8:0001:0000::', DEFAULT_PREFIXES, '2001:db8:1:0:0:0:0:0/64'],
    ['2001:db8:1:3::1', DEFAULT_PREFIXES, '2001:db8:1:3:0:0:0:0/64'],
    ['2001:db8:1:2::1', { v4: 32, v6: 48 }, '2001:db8:1:0:0:0:0:0/48'],
    ['2001:db8:1:2ff::1', { v4: 32, v6: 56 }, '2001:db8:1:200:0:0:0:0/56'],
    ['2001:db8::1', { v4: 32, v6: 128 }, '2001:db8:0:0:0:0:0:1'],
    ['::1', DEFAULT_PREFIXES, '0:0:0:0:0:0:0:0/64'],
    ['::', DEFAULT_PREFIXES, '0:0:0:0:0:0:0:0/64'],
    // IPv4-mapped IPv6 counts as IPv4, in both spellings and under the v4 prefix.
    ['::ffff:198.51.100.7', DEFAULT_PREFIXES, '198.51.100.7'],
    ['::FFFF:c633:6407', DEFAULT_PREFIXES, '198.51.100.7'],
    ['0:0:0:0:0:ffff:198.51.100.7', { v4: 24, v6: 64 }, '198.51.100.0/24'],
    ['64:ff9b::198.51.100.7', DEFAULT_PREFIXES, '64:ff9b:0:0:0:0:0:0/64'],
    // No address: every such text shares one key, so garbage cannot mint shares.
    ['unknown', DEFAULT_PREFIXES, UNPARSABLE],
    ['198.51.100', DEFAULT_PREFIXES, UNPARSABLE],
    ['198.51.100.256', DEFAULT_PREFIXES, UNPARSABLE],
    ['198.051.100.7', DEFAULT_PREFIXES, UNPARSABLE],
    ['1.2.3.4.5', DEFAULT_PREFIXES, UNPARSABLE],
    ['2001:db8::1::2', DEFAULT_PREFIXES, UNPARSABLE],
    ['2001:db8:1:2:3:4:5:6:7', DEFAULT_PREFIXES, UNPARSABLE],
    ['2001:db8:1:2:3:4:5:6::', DEFAULT_PREFIXES, UNPARSABLE],
    ['12345::1', DEFAULT_PREFIXES, UNPARSABLE],
    ['g::1', DEFAULT_PREFIXES, UNPARSABLE],
    ['::ffff:300.1.1.1', DEFAULT_PREFIXES, UNPARSABLE],
    [`2001:db8::${'1'.repeat(100)}`, DEFAULT_PREFIXES, UNPARSABLE],
    ['__proto__', DEFAULT_PREFIXES, UNPARSABLE],
  ])('%s under /%j → %s', (address, prefixes, key) => {
    expect(clientNetwork(address, prefixes)).toBe(key);
    expect(networkOf(prefixes)(address)).toBe(key);
  });

  it('networkOf answers again after a text too long to remember', () => {
    const network = networkOf(DEFAULT_PREFIXES);
    expect([network('2001:db8::1'), network(LONG_ZONE), network('2001:db8::1')]).toEqual([
      '2001:db8:0:0:0:0:0:0/64',
      UNPARSABLE,
      '2001:db8:0:0:0:0:0:0/64',
    ]);
  });
});

describe('TRUSTED_PROXY_HOPS', () => {
  it.each([
    [undefined, 0],
    ['2', 2],
    ['10', 10],
  ])('%j reads as %i', (value, hops) => {
    expect(readTrustedProxyHops(readEnv(value === undefined ? {} : { TRUSTED_PROXY_HOPS: value }))).toBe(hops);
  });

  it.each(['11', '-1', 'one'])('refuses %j, naming it', (value) => {
    const env = readEnv({ TRUSTED_PROXY_HOPS: value });
    readTrustedProxyHops(env);
    expect(() => env.done()).toThrow(/TRUSTED_PROXY_HOPS/);
  });
});
