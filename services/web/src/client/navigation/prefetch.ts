// Prefetch on intent (hover, focus, touch) and, for links marked data-prefetch="viewport", when they come into view:
// the target's page data goes through a queue (at most 5 requests at once) into the prefetch cache, and the target
// route's code chunk is warmed. Nothing is prefetched when the user asked to save data.
import { type DataRouter, matchRoutes, type RouteObject } from 'react-router';
import type { PageData } from '../../framework/shared/page-data-protocol.ts';
import type { RouteEntry } from '../../framework/shared/route-entry.ts';
import { PREFETCH_CONCURRENCY, PREFETCH_INTENT_DELAY_MS } from '../../framework/shared/timing.ts';
import type { PrefetchSource } from './data-strategy.ts';
import type { RouteCode } from './lazy-route.ts';
import { fetchPageData } from './page-data-client.ts';
import { createPrefetchCache, createTaskQueue } from './prefetch-cache.ts';

export interface Prefetcher extends PrefetchSource {
  /** Entries held (fresh or stale); for the diagnostics hook the end-to-end tests read. */
  readonly size: number;
  prefetch(href: string): void;
  /** Starts listening to the document (after hydration). */
  start(router: DataRouter): void;
}

export function createPrefetcher(options: {
  routes: RouteObject[];
  entries: Map<string, RouteEntry>;
  routeCode: RouteCode;
  now?: () => number;
}): Prefetcher {
  const cache = createPrefetchCache<Promise<PageData>>({ now: options.now ?? (() => Date.now()) });
  let router: DataRouter | undefined;
  const queue = createTaskQueue(PREFETCH_CONCURRENCY);
  const saveData = () =>
    (navigator as Navigator & { connection?: { saveData?: boolean } }).connection?.saveData === true;

  const prefetch = (href: string) => {
    const url = new URL(href, window.location.href);
    url.hash = '';
    if (url.origin !== window.location.origin || saveData()) return;
    if (url.pathname === window.location.pathname && url.search === window.location.search) return;
    // A navigation already fetching this page (a hover's intent delay can end before the navigation does).
    const going = router?.state.navigation.location;
    if (going && url.pathname === going.pathname && url.search === going.search) return;
    const matches = matchRoutes(options.routes, url.pathname);
    if (!matches) return;
    for (const match of matches) {
      const entry = options.entries.get(match.route.id ?? '');
      if (entry) options.routeCode.warm(entry);
    }
    if (cache.freshness(url.href) === 'fresh') return;
    const ids = matches.filter((m) => m.route.loader).map((m) => m.route.id ?? '');
    if (ids.length === 0) return;
    queue.push(url.href, () => {
      const pending = fetchPageData(url.href, ids);
      cache.put(url.href, ids, pending);
      return pending.catch(() => cache.delete(url.href));
    });
  };

  const linkOf = (target: EventTarget | null): HTMLAnchorElement | null => {
    const link = target instanceof Element ? target.closest('a[href]') : null;
    if (!(link instanceof HTMLAnchorElement) || link.target === '_blank' || link.hasAttribute('download')) return null;
    return link;
  };

  const start = (dataRouter: DataRouter) => {
    router = dataRouter;
    let hoverTimer: ReturnType<typeof setTimeout> | undefined;
    document.addEventListener('mouseover', (event) => {
      const link = linkOf(event.target);
      clearTimeout(hoverTimer);
      if (link) hoverTimer = setTimeout(() => prefetch(link.href), PREFETCH_INTENT_DELAY_MS);
    });
    document.addEventListener('mouseout', () => clearTimeout(hoverTimer));
    document.addEventListener('focusin', (event) => {
      const link = linkOf(event.target);
      if (link) prefetch(link.href);
    });
    document.addEventListener(
      'touchstart',
      (event) => {
        const link = linkOf(event.target);
        if (link) prefetch(link.href);
      },
      { passive: true },
    );
    const observer = new IntersectionObserver((records) => {
      for (const record of records) {
        if (!record.isIntersecting) continue;
        observer.unobserve(record.target);
        prefetch((record.target as HTMLAnchorElement).href);
      }
    });
    const observeMarked = () => {
      observer.disconnect();
      for (const link of document.querySelectorAll<HTMLAnchorElement>('a[data-prefetch="viewport"]')) {
        observer.observe(link);
      }
    };
    observeMarked();
    router.subscribe((state) => {
      if (state.navigation.state === 'idle') requestAnimationFrame(observeMarked);
    });
    // Expired entries go even if nobody asks for them.
    setInterval(() => cache.sweep(), 60_000);
  };

  return {
    prefetch,
    start,
    takeFresh: (url, ids) => cache.takeFresh(new URL(url).href, ids),
    clear: () => cache.clear(),
    get size() {
      return cache.sweep();
    },
  };
}
