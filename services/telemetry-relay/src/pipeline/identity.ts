// Who sent the envelope, for Sentry's IP, geo and browser inference: the client's address (service-kit's
// clientAddress), sent as X-Sentry-Forwarded-For unless SCRUB_IP_ADDRESSES; only listed headers are copied (never
// cookies or Authorization); Referer cut to its origin (Sentry reads only that; a path may carry a token).
import type { IncomingHttpHeaders } from 'node:http';

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
