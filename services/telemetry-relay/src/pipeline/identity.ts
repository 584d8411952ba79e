import type { IncomingHttpHeaders } from 'node:http';

/**
 * Stage 5: who sent the envelope, as Sentry needs it to infer user IP, geo and browser. The client IP is Fastify's
 * `request.ip`, which walks X-Forwarded-For only as far as TRUSTED_PROXY_HOPS allows (a client-supplied header is
 * never believed beyond that), and goes upstream as X-Sentry-Forwarded-For, which Sentry reads before anything else.
 * Only the listed headers are copied: never cookies, never the browser's Authorization.
 */
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

export function identityHeaders(request: { ip: string; headers: IncomingHttpHeaders }): Record<string, string> {
  const out: Record<string, string> = {};
  const ip = request.ip.startsWith('::ffff:') ? request.ip.slice(7) : request.ip;
  if (ip) out['x-sentry-forwarded-for'] = ip;
  for (const name of COPIED) {
    const value = request.headers[name];
    if (typeof value === 'string' && value.length <= 1024) out[name] = value;
  }
  return out;
}
