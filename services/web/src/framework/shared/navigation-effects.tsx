// What a client-side navigation must do that a full load gets for free: title, head metadata, focus, scroll.
import { useEffect, useRef, useState } from 'react';
import { useLocation, useMatches, useNavigationType } from 'react-router';
import { type PageMeta, pageMetaOf } from './page-meta.ts';

/** Sets the head elements the server wrote (see render-document.tsx) to a new page's metadata. */
function applyPageMeta(meta: PageMeta, title: string): void {
  document.documentElement.lang = meta.lang;
  const element = (selector: string, tag: 'meta' | 'link', attributes: Record<string, string>) => {
    let found = document.head.querySelector(selector);
    if (!found) {
      found = document.createElement(tag);
      for (const [name, value] of Object.entries(attributes)) found.setAttribute(name, value);
      document.head.append(found);
    }
    return found;
  };
  const setContent = (selector: string, attributes: Record<string, string>, value: string | undefined) => {
    if (value === undefined) document.head.querySelector(selector)?.remove();
    else element(selector, 'meta', attributes).setAttribute('content', value);
  };
  setContent('meta[name="description"]', { name: 'description' }, meta.description);
  setContent('meta[property="og:description"]', { property: 'og:description' }, meta.description);
  setContent('meta[property="og:title"]', { property: 'og:title' }, title);
  setContent('meta[property="og:url"]', { property: 'og:url' }, meta.canonical);
  if (meta.canonical)
    element('link[rel="canonical"]', 'link', { rel: 'canonical' }).setAttribute('href', meta.canonical);
}

/**
 * What a full page load does and a client navigation does not, done by hand after each client navigation: the
 * document title and the head metadata (description, canonical URL, Open Graph, lang) are updated, the new page is
 * announced to screen readers in a polite live region, and focus moves to the main content (the element with id
 * `main`, which must have tabIndex -1). Scroll is ScrollRestoration's job.
 */
export function NavigationEffects({ appName }: { appName: string }) {
  const location = useLocation();
  const matches = useMatches();
  const navigationType = useNavigationType();
  const [announcement, setAnnouncement] = useState('');
  const first = useRef(true);

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per navigation, keyed by location.key
  useEffect(() => {
    // The origin the server chose for the canonical URL (PUBLIC_ORIGIN, say), kept; none if it printed none.
    const canonical = document.head.querySelector<HTMLLinkElement>('link[rel="canonical"]')?.href;
    const origin = canonical ? new URL(canonical).origin : undefined;
    const meta = pageMetaOf(matches, { appName, origin, pathname: location.pathname });
    // An error screen on the page names it (see error-screens.tsx).
    document.title = document.querySelector('#main [data-page-title]')?.getAttribute('data-page-title') ?? meta.title;
    if (first.current) {
      first.current = false;
      return;
    }
    applyPageMeta(meta, document.title);
    setAnnouncement(`Navigated to ${document.title}`);
    // A Back/Forward keeps focus where the browser would; a new page starts at its main content, unless it has a
    // hash target (ScrollRestoration scrolls there and the browser would focus it).
    if (navigationType !== 'POP' && !location.hash) {
      document.getElementById('main')?.focus({ preventScroll: true });
    }
  }, [location.key]);

  return (
    <div className="visually-hidden" aria-live="polite" aria-atomic="true" data-testid="route-announcer">
      {announcement}
    </div>
  );
}
