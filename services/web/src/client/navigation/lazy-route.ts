// Route code arrives as lazy chunks. A chunk that fails, or takes longer than 3.8 s, turns the navigation into a
// full page load of its target, so a broken deploy or a slow network never strands the user on an error.
import type { DataRouter } from 'react-router';
import type { RouteEntry, RouteView, ViewModules } from '../../framework/shared/route-entry.ts';
import { viewLoader } from '../../framework/shared/route-entry.ts';
import { ROUTE_CODE_TIMEOUT_MS } from '../../framework/shared/timing.ts';
import { hardNavigate } from './hard-navigate.ts';

export class RouteCodeUnavailable extends Error {
  override name = 'RouteCodeUnavailable';
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RouteCodeUnavailable(`${what} did not arrive within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface RouteCode {
  /** For the router's lazy routes: on failure, a full load of the pending navigation's target. */
  load(entry: RouteEntry): Promise<RouteView>;
  /** For prefetch: starts loading, ignores failure (a later navigation retries and falls back if needed). */
  warm(entry: RouteEntry): void;
  /** Once the router exists, failures can find the navigation's target. */
  attach(router: DataRouter): void;
}

export function createRouteCode(views: ViewModules, timeoutMs = ROUTE_CODE_TIMEOUT_MS): RouteCode {
  const loaded = new Map<string, Promise<RouteView>>();
  let router: DataRouter | undefined;
  const fetchView = (entry: RouteEntry) => {
    let promise = loaded.get(entry.id);
    if (!promise) {
      promise = withTimeout(viewLoader(views, entry)(), timeoutMs, `code of route ${entry.id}`);
      loaded.set(entry.id, promise);
      // A failed chunk is retried by the next attempt rather than cached forever.
      promise.catch(() => loaded.delete(entry.id));
    }
    return promise;
  };
  return {
    load(entry) {
      return fetchView(entry).catch((error: unknown) => {
        const target = router?.state.navigation.location;
        // Before hydration (or for no navigation) the caller decides; never reload the page we are on (no loops).
        if (!router || !target) throw error;
        return hardNavigate(router.createHref(target), String(error));
      });
    },
    warm(entry) {
      fetchView(entry).catch(() => {});
    },
    attach(created) {
      router = created;
    },
  };
}
