// The origin of a page's canonical and Open Graph URLs. Never the Host header as such: a client can send any Host,
// and a canonical URL naming another site would be printed into the page (and cached by whatever caches it).

import { isIP } from 'node:net';

export interface CanonicalOriginOptions {
  /** PUBLIC_ORIGIN: the site's own origin, used for every request when set. */
  publicOrigin: string | undefined;
  /** ALLOWED_ORIGINS: origins configured as this site's, so a request naming one of them is believed. */
  allowedOrigins: readonly string[];
}

/** localhost, *.localhost, 127.0.0.0/8 and ::1: a name only this machine answers to (local development, tests). */
function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return isIP(host) === 6 && host === '::1';
}

/**
 * PUBLIC_ORIGIN when configured; else the request's own origin if it is a configured one or a loopback host; else
 * none (the page then has no canonical URL rather than one a forged Host chose).
 */
export function canonicalOrigin(requestOrigin: string, options: CanonicalOriginOptions): string | undefined {
  if (options.publicOrigin) return options.publicOrigin;
  const url = URL.parse(requestOrigin);
  // A forwarded scheme other than http(s) makes an origin of "null", no base for a URL.
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  if (options.allowedOrigins.includes(url.origin) || isLoopback(url.hostname)) return url.origin;
  return undefined;
}
