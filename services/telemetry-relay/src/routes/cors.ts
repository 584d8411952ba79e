// Callers on other hosts (decision 050): the browser asks first (a preflight) when it sends more than a simple
// request, and reads an answer only when it names the page's origin. The allowed origin is echoed, never `*`, with
// `Vary: Origin` so no cache serves one origin's answer to another; the headers the SDK reads are exposed.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { RelayError } from '../core/errors.ts';
import { originRefusal } from '../pipeline/index.ts';

/** What the browser SDK reads from an answer: its rate limits and how long to pause. */
export const EXPOSED_HEADERS = 'X-Sentry-Rate-Limits, Retry-After';
/** Request headers a caller may send: the SDK's own (a compressed body, a page token) beside the simple ones. */
export const ALLOWED_HEADERS = 'Content-Type, Content-Encoding, X-Page-Token';
/** Short: a removed origin stops working within minutes. */
export const PREFLIGHT_MAX_AGE_SECONDS = 300;

/**
 * The request's Origin when it is another host's (a cross-origin caller), else undefined: no Origin (not a browser's
 * CORS request) or the relay's own host (same-origin callers, as before).
 */
export function crossOrigin(req: IncomingMessage): string | undefined {
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  const host = req.headers.host;
  const schemeEnd = origin.indexOf('://');
  if (host !== undefined && schemeEnd > 0 && origin.slice(schemeEnd + 3).toLowerCase() === host.toLowerCase()) {
    return undefined;
  }
  return origin;
}

/** The headers of an answer to an allowed cross-origin POST. */
export function allowOrigin(res: ServerResponse, origin: string): void {
  res.setHeader('access-control-allow-origin', origin);
  res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
  res.setHeader('vary', 'Origin');
}

/** A preflight's answer: 204 with the origin allowed, or 403 (the browser then never sends the POST). */
export function preflightAnswer(
  origin: string,
  allowed: boolean,
): { status: number; headers: OutgoingHttpHeaders; body: string } {
  if (!allowed) {
    const error = notAllowed(origin);
    return {
      status: error.statusCode,
      headers: { 'content-type': 'application/json', vary: 'Origin' },
      body: JSON.stringify({ error: error.code, detail: error.message }),
    };
  }
  return {
    status: 204,
    headers: {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-allow-headers': ALLOWED_HEADERS,
      'access-control-expose-headers': EXPOSED_HEADERS,
      'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
      vary: 'Origin',
    },
    body: '',
  };
}

/** A preflight is an OPTIONS with Origin and Access-Control-Request-Method; any other OPTIONS is not one. */
export const isPreflight = (req: IncomingMessage): boolean =>
  req.method === 'OPTIONS' &&
  req.headers.origin !== undefined &&
  req.headers['access-control-request-method'] !== undefined;

export const notAllowed = (origin: string): RelayError => new RelayError('origin_not_allowed', originRefusal(origin));
