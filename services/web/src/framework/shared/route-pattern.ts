// One name per route for logs, metrics and transactions, whatever the URL's parameters.

/**
 * The route pattern (e.g. /catalog/:slug) of a match list: what the server labels requests, metrics and spans with,
 * and what the browser names its navigation transactions by.
 */
export function patternOf(matches: ReadonlyArray<{ route: { path?: string | undefined } }>): string {
  const joined = matches
    .map((m) => m.route.path ?? '')
    .filter((p) => p !== '')
    .join('/')
    .replace(/\/+/g, '/');
  return joined.startsWith('/') ? joined : `/${joined}`;
}
