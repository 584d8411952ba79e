// The relay's page token in the browser: read from the page, renewed by every page-data answer, and sent with each
// envelope. One headers object the SDK's fetch transport is given, changed in place: the transport reads it on
// every send, so a renewed token goes with the next envelope without remaking the transport.
import { PAGE_TOKEN_HEADER, PAGE_TOKEN_QUERY } from '../../framework/shared/client-config.ts';

/** The transport's `headers` option (sentry.ts). */
export const transportHeaders: Record<string, string> = {};

/** Keeps `token` (from the page's config or a page-data answer's header); nothing when there is none. */
export function setPageToken(token: string | null | undefined): void {
  if (token) transportHeaders[PAGE_TOKEN_HEADER] = token;
}

/** `url` with the token in its query, for a beacon (sendBeacon sends no headers); `url` as it is without one. */
export function withPageToken(url: string): string {
  const token = transportHeaders[PAGE_TOKEN_HEADER];
  if (!token) return url;
  return `${url}${url.includes('?') ? '&' : '?'}${PAGE_TOKEN_QUERY}=${encodeURIComponent(token)}`;
}
