// Cache-Control of a document. `private, no-cache` lets the browser keep the page in its back/forward cache (and
// revalidate it on every other use); `no-store` keeps out a page that shows the visitor's own state, so Back after
// a change of that state shows it fresh.
import type { RouteHandle } from '../../framework/shared/route-entry.ts';

const SHAREABLE_DOCUMENT = 'private, no-cache';
const PRIVATE_DOCUMENT = 'no-store';

/** Names of the cookies a Cookie header carries. */
export function cookieNames(header: string | undefined): Set<string> {
  const names = new Set<string>();
  for (const pair of header?.split(';') ?? []) {
    const name = pair.split('=', 1)[0]?.trim();
    if (name) names.add(name);
  }
  return names;
}

/** no-store when a matched route reads a cookie the request carries, or the response sets one. */
export function documentCacheControl(
  matches: ReadonlyArray<{ route: { handle?: unknown } }>,
  cookieHeader: string | undefined,
  setsCookie: boolean,
): string {
  if (setsCookie) return PRIVATE_DOCUMENT;
  const sent = cookieNames(cookieHeader);
  const readsSentCookie = matches.some((m) =>
    ((m.route.handle as RouteHandle | undefined)?.cookies ?? []).some((name) => sent.has(name)),
  );
  return readsSentCookie ? PRIVATE_DOCUMENT : SHAREABLE_DOCUMENT;
}
