import { useEffect, useRef, useState } from 'react';
import { useLocation, useMatches, useNavigationType } from 'react-router';
import type { RouteHandle } from './route-table.ts';

/** The document title of the deepest matched route that has one. */
export function titleOf(matches: ReturnType<typeof useMatches>, fallback: string): string {
  for (let i = matches.length - 1; i >= 0; i--) {
    const match = matches[i];
    const handle = match?.handle as RouteHandle | undefined;
    // A route whose loader failed has no data: unless its title needs none, the next one up names the page.
    if (handle?.title && (match?.loaderData !== undefined || handle.title.length === 0)) {
      return handle.title(match?.loaderData);
    }
  }
  return fallback;
}

/**
 * What a full page load does and a client navigation does not, done by hand after each client navigation: the
 * document title is updated, the new page is announced to screen readers in a polite live region, and focus moves
 * to the main content (the element with id `main`, which must have tabIndex -1). Scroll is ScrollRestoration's job.
 */
export function NavigationEffects({ appName }: { appName: string }) {
  const location = useLocation();
  const matches = useMatches();
  const navigationType = useNavigationType();
  const [announcement, setAnnouncement] = useState('');
  const first = useRef(true);
  const title = titleOf(matches, appName);

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per navigation, keyed by location.key
  useEffect(() => {
    // An error screen on the page names it (see error-screens.tsx).
    document.title = document.querySelector('#main [data-page-title]')?.getAttribute('data-page-title') ?? title;
    if (first.current) {
      first.current = false;
      return;
    }
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
