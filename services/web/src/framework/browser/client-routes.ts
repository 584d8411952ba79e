// The browser's routes from the route table, each view's code loaded only when a navigation needs it.
import type { RouteObject } from 'react-router';
import { RouteErrorBoundary } from '../shared/error-screens.tsx';
import { type RouteEntry, type RouteHandle, type RouteView, viewHandle } from '../shared/route-entry.ts';

/** Wraps a dynamic import (for the route-code timeout and full-load fallback, see client/navigation/lazy-route.ts). */
export type LoadView = (entry: RouteEntry) => Promise<RouteView>;

/**
 * Browser routes from the same table: `loader: true` / `action: true` (the data strategy fetches page data) and the
 * view as a lazy chunk. Error boundaries are static so error screens work even when a chunk cannot load.
 */
export function buildClientRoutes(table: RouteEntry[], loadView: LoadView): RouteObject[] {
  return table.map((entry) => {
    const load = () => loadView(entry);
    const common = {
      id: entry.id,
      ErrorBoundary: RouteErrorBoundary,
      ...(entry.loader ? { loader: true as const } : {}),
      ...(entry.action ? { action: true as const } : {}),
      lazy: {
        Component: async () => (await load()).Component,
        handle: async (): Promise<RouteHandle> => viewHandle(await load()),
      },
    };
    if (entry.index) return { ...common, index: true };
    return {
      ...common,
      ...(entry.path !== undefined ? { path: entry.path } : {}),
      ...(entry.children ? { children: buildClientRoutes(entry.children, loadView) } : {}),
    };
  }) as RouteObject[];
}
