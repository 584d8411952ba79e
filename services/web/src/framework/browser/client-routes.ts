// The browser's routes, found in src/app/routes/ like the server's: each view's code loaded only when a navigation
// needs it, the loaders' and actions' files seen but never their code (build/server-only.ts empties them here).
import type { RouteObject } from 'react-router';
import { RouteErrorBoundary } from '../shared/error-screens.tsx';
import { metaHandle, type RouteEntry, type RouteMeta, type RouteView } from '../shared/route-entry.ts';
import { findRoutes } from '../shared/route-folders.ts';

export const { table: clientRouteTable, views: clientViews } = findRoutes({
  views: import.meta.glob<RouteView>('../../app/routes/**/view.tsx'),
  metas: import.meta.glob<RouteMeta>('../../app/routes/**/meta.ts', { eager: true }),
  loaders: import.meta.glob<{ loader?: unknown }>('../../app/routes/**/loader.server.ts', { eager: true }),
  actions: import.meta.glob<{ action?: unknown }>('../../app/routes/**/action.server.ts', { eager: true }),
});

/** Wraps a dynamic import (for the route-code timeout and full-load fallback, see client/navigation/lazy-route.ts). */
export type LoadView = (entry: RouteEntry) => Promise<RouteView>;

/**
 * Browser routes: `loader: true` / `action: true` (the data strategy fetches page data), the handle from the meta
 * module and the view as a lazy chunk. Error boundaries are static so error screens work even when a chunk cannot load.
 */
export function buildClientRoutes(table: RouteEntry[], loadView: LoadView): RouteObject[] {
  return table.map((entry) => {
    const common = {
      id: entry.id,
      ErrorBoundary: RouteErrorBoundary,
      handle: metaHandle(entry.meta),
      ...(entry.loader ? { loader: true as const } : {}),
      ...(entry.action ? { action: true as const } : {}),
      lazy: { Component: async () => (await loadView(entry)).Component },
    };
    if (entry.index) return { ...common, index: true };
    return {
      ...common,
      ...(entry.path !== undefined ? { path: entry.path } : {}),
      ...(entry.children ? { children: buildClientRoutes(entry.children, loadView) } : {}),
    };
  }) as RouteObject[];
}
