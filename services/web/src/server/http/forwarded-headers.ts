// X-Forwarded-Host and -Proto believed (request.host, request.protocol) only as far as the edge promises: with
// PUBLIC_ORIGIN or ALLOWED_ORIGINS set, a forwarded host that is none of theirs is dropped before anything reads it (an
// edge passing a client's on would let it name the host), and so is a scheme other than http or https.

import type { IncomingMessage } from 'node:http';
import type { Lane } from '@app/service-kit';

export interface ForwardedHeadersOptions {
  trustedProxyHops: number;
  publicOrigin: string | undefined;
  allowedOrigins: readonly string[];
}

/** The hosts (with port) a forwarded host may name; undefined: no origin configured, nothing to compare with. */
function expectedHosts(options: ForwardedHeadersOptions): Set<string> | undefined {
  const origins = [...(options.publicOrigin ? [options.publicOrigin] : []), ...options.allowedOrigins];
  const hosts = origins.flatMap((origin) => URL.parse(origin)?.host ?? []);
  return hosts.length > 0 ? new Set(hosts) : undefined;
}

/** The last (nearest proxy's) entry of a forwarded header, as Fastify reads it. */
const lastEntry = (value: string) => value.slice(value.lastIndexOf(',') + 1).trim();

/**
 * The front door's lane that drops forwarded headers naming a host or scheme that is not this site's, and answers
 * nothing (undefined: no proxy is trusted, so no forwarded header is read).
 */
export function screenForwardedHeaders(options: ForwardedHeadersOptions): Lane | undefined {
  if (options.trustedProxyHops === 0) return undefined;
  const hosts = expectedHosts(options);
  return (req: IncomingMessage) => {
    const { headers } = req;
    const host = headers['x-forwarded-host'];
    if (host !== undefined && hosts && !hosts.has(URL.parse(`http://${lastEntry(String(host))}`)?.host ?? '')) {
      delete headers['x-forwarded-host'];
    }
    const proto = headers['x-forwarded-proto'];
    if (proto !== undefined && !['http', 'https'].includes(lastEntry(String(proto))))
      delete headers['x-forwarded-proto'];
    return false;
  };
}
