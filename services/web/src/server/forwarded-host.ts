// X-Forwarded-Host is believed (as request.host, for the Origin check and the router's request URL) only as far as
// the edge promises: the Gateway in deploy/k8s strips the client's, but an edge that passes it on would let any client
// name the host. With PUBLIC_ORIGIN or ALLOWED_ORIGINS set, a forwarded host that is none of theirs is dropped
// before anything reads it, and the request's own Host stands.

import type { IncomingMessage, RequestListener } from 'node:http';

export interface ForwardedHostOptions {
  trustedProxyHops: number;
  publicOrigin: string | undefined;
  allowedOrigins: readonly string[];
}

/** The hosts (with port) a forwarded host may name; undefined: no origin configured, nothing to compare with. */
function expectedHosts(options: ForwardedHostOptions): Set<string> | undefined {
  const origins = [...(options.publicOrigin ? [options.publicOrigin] : []), ...options.allowedOrigins];
  const hosts = origins.flatMap((origin) => URL.parse(origin)?.host ?? []);
  return hosts.length > 0 ? new Set(hosts) : undefined;
}

/** Whether the last (nearest proxy's) X-Forwarded-Host entry is one of `hosts`, as Fastify reads the header. */
function namesExpectedHost(value: string, hosts: Set<string>): boolean {
  const last = value.slice(value.lastIndexOf(',') + 1).trim();
  return hosts.has(URL.parse(`http://${last}`)?.host ?? '');
}

/** Drops an X-Forwarded-Host naming none of the configured origins; wraps the server's request listener. */
export function screenForwardedHost(options: ForwardedHostOptions): (next: RequestListener) => RequestListener {
  const hosts = expectedHosts(options);
  if (options.trustedProxyHops === 0 || hosts === undefined) return (next) => next;
  return (next) => (req: IncomingMessage, res) => {
    const forwarded = req.headers['x-forwarded-host'];
    if (forwarded !== undefined && !namesExpectedHost(String(forwarded), hosts)) delete req.headers['x-forwarded-host'];
    next(req, res);
  };
}
