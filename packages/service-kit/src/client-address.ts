// Who sent a request: the peer, or the address the trusted proxies saw. Both services key shares on it and the relay
// sends it upstream, so the client's own text past the trusted hops counts only when it is an IP address.
import { isIP } from 'node:net';
import type { EnvReader } from './env.ts';

/** TRUSTED_PROXY_HOPS: how many proxies in front (the edge, an ingress) append to X-Forwarded-For and are believed. */
export function readTrustedProxyHops(env: EnvReader): number {
  return env.integer('TRUSTED_PROXY_HOPS', 0, { min: 0, max: 10 });
}

/**
 * The client's address: the peer itself with no trusted hops; with N trusted proxies, the address the Nth proxy
 * saw (counting X-Forwarded-For from its end), or the farthest one given; the peer again when that entry is no IP
 * address or carries a zone. The same rule as proxy-addr's hop-count trust; IPv4-mapped IPv6 comes out as IPv4.
 */
export function clientAddress(peer: string, forwardedFor: string | string[] | undefined, trustedHops: number): string {
  let address = peer;
  if (trustedHops > 0 && forwardedFor) {
    const chain = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '');
    address = chain[Math.max(0, chain.length - trustedHops)] ?? peer;
    // isIP admits an IPv6 zone of any length (`fe80::1%` + 15 KiB): a zone means nothing off the proxy's host.
    if (address.includes('%') || (isIP(address) === 0 && isIP(address.replace(/^::ffff:/, '')) === 0)) address = peer;
  }
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/** What a request tells of its sender: the socket's peer and the X-Forwarded-For header. */
export interface ArrivedRequest {
  socket?: { remoteAddress?: string | undefined } | undefined;
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** clientAddress of a request as it arrived (node:http's, or Fastify's raw one). */
export function requestClientAddress(req: ArrivedRequest, trustedHops: number): string {
  return clientAddress(req.socket?.remoteAddress ?? '', req.headers['x-forwarded-for'], trustedHops);
}
