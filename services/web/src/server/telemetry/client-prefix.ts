// Which client a request comes from, for shares: the address the trusted proxies saw (the hop-count rule Fastify's
// trustProxy and the relay's identity.ts use), cut to its network for IPv6 (/64: one subscriber's usual allocation,
// where every address is the same attacker's) and kept whole for IPv4.
import { isIPv6 } from 'node:net';

export interface ClientOf {
  headers: { 'x-forwarded-for'?: string | string[] | undefined };
  socket?: { remoteAddress?: string | undefined } | undefined;
}

/** Longest text read of X-Forwarded-For: a trusted chain is a few addresses, whatever a client prepends. */
const MAX_FORWARDED_FOR = 1024;

export function clientAddress(req: ClientOf, trustedProxyHops: number): string {
  const peer = req.socket?.remoteAddress ?? '';
  const forwarded = req.headers['x-forwarded-for'];
  if (trustedProxyHops === 0 || !forwarded) return peer;
  const text = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded).slice(-MAX_FORWARDED_FOR);
  const chain = text.split(',').map((part) => part.trim());
  return chain[Math.max(0, chain.length - trustedProxyHops)] || peer;
}

/** IPv4 (also IPv4-mapped IPv6) as is; IPv6 as its first four groups (/64); anything else as is, bounded. */
export function clientPrefix(address: string): string {
  const plain = address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
  const host = plain.replace(/%.*$/, '');
  if (!isIPv6(host)) return host.slice(0, 64);
  const [head = '', tail] = host.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array.from({ length: Math.max(0, missing) }, () => '0'), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => group.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
