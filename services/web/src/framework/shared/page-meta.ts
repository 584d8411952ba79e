// The head metadata of a page, from the matched routes' handles: title, description, language, canonical URL and
// their Open Graph copies. The server writes it into the document; NavigationEffects updates it after a client
// navigation, so both always agree.
import type { RouteHandle } from './route-entry.ts';

export interface PageMeta {
  title: string;
  description: string | undefined;
  lang: string;
  /** Absolute URL of the page without its query string; undefined when the site's origin is not known. */
  canonical: string | undefined;
}

interface MatchLike {
  handle?: unknown;
  loaderData?: unknown;
}

/** The value of the deepest route whose `pick` gives one, from its loader data. */
function deepest(
  matches: readonly MatchLike[],
  pick: (handle: RouteHandle) => ((data: unknown) => string) | undefined,
): string | undefined {
  for (let i = matches.length - 1; i >= 0; i--) {
    const match = matches[i];
    const fn = match?.handle ? pick(match.handle as RouteHandle) : undefined;
    // A route whose loader failed has no data: unless its value needs none, the next one up names the page.
    if (fn && (match?.loaderData !== undefined || fn.length === 0)) return fn(match?.loaderData);
  }
  return undefined;
}

const DEFAULT_LANG = 'en';

export function pageMetaOf(
  matches: readonly MatchLike[],
  options: { appName: string; origin: string | undefined; pathname: string },
): PageMeta {
  const lang = matches
    .map((m) => (m.handle as RouteHandle | undefined)?.lang)
    .filter((l): l is string => l !== undefined)
    .at(-1);
  return {
    title: deepest(matches, (h) => h.title) ?? options.appName,
    description: deepest(matches, (h) => h.description),
    lang: lang ?? DEFAULT_LANG,
    canonical: options.origin === undefined ? undefined : canonicalUrl(options.origin, options.pathname),
  };
}

/**
 * The origin with the path on it, never a URL the path chose: `new URL('//evil.example/x', origin)` (or `/\evil…`)
 * names another site. Leading slashes and backslashes collapse to one, and the path is set, not resolved.
 */
export function canonicalUrl(origin: string, pathname: string): string {
  const url = new URL(origin);
  url.pathname = `/${pathname.replace(/^[/\\]+/, '')}`;
  return url.href;
}
