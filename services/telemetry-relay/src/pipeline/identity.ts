// Stage 7: who sent the envelope, for Sentry's IP, geo and browser inference: X-Forwarded-For believed for exactly
// TRUSTED_PROXY_HOPS hops, sent as X-Sentry-Forwarded-For unless SCRUB_IP_ADDRESSES; only listed headers are copied
// (never cookies or Authorization); Referer cut to its origin (Sentry reads only that; a path may carry a token).
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';

const COPIED = [
  'user-agent',
  'origin',
  'referer',
  'sec-ch-ua',
  'sec-ch-ua-mobile',
  'sec-ch-ua-model',
  'sec-ch-ua-platform',
  'sec-ch-ua-platform-version',
] as const;

/**
 * The client's address: the peer itself with no trusted hops; with N trusted proxies, the address the Nth proxy
 * saw (counting X-Forwarded-For from its end), or the farthest one given. The same rule as proxy-addr's
 * hop-count trust.
 */
export function clientAddress(peer: string, forwardedFor: string | string[] | undefined, trustedHops: number): string {
  let address = peer;
  if (trustedHops > 0 && forwardedFor) {
    const chain = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '');
    address = chain[Math.max(0, chain.length - trustedHops)] ?? peer;
    // Past the trusted hops the entry is the client's own text: only an IP address keys a share or goes upstream.
    // isIP admits an IPv6 zone of any length (`fe80::1%` + 15 KiB): a zone means nothing off the proxy's host.
    if (address.includes('%') || (isIP(address) === 0 && isIP(address.replace(/^::ffff:/, '')) === 0)) address = peer;
  }
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/** `forwardAddress` false (SCRUB_IP_ADDRESSES): Sentry fills `user.ip_address` from that header, so it stays here. */
export function identityHeaders(
  ip: string,
  headers: IncomingHttpHeaders,
  forwardAddress = true,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (ip && forwardAddress) out['x-sentry-forwarded-for'] = ip;
  for (const name of COPIED) {
    const value = headers[name];
    if (typeof value !== 'string' || value.length > 1024) continue;
    const copied = name === 'referer' ? refererOrigin(value) : value;
    if (copied !== undefined) out[name] = copied;
  }
  return out;
}

/** What `Referrer-Policy: strict-origin` would have sent: the origin and "/", nothing of the path or query. */
function refererOrigin(referer: string): string | undefined {
  const url = URL.parse(referer);
  if (url === null || url.origin === 'null') return undefined;
  return `${url.origin}/`;
}
