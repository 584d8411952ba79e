// The server's routes, found in src/app/routes/ (framework/shared/route-folders.ts has the convention): views,
// loaders and actions imported by the build, so a route is one folder and there is nothing to keep in step.
import type { RouteObject } from 'react-router';
import { RouteErrorBoundary } from '../shared/error-screens.tsx';
import {
  metaHandle,
  type RouteEntry,
  type RouteMeta,
  type RouteView,
  type ServerHandlers,
  type ViewModules,
  viewLoader,
} from '../shared/route-entry.ts';
import { findRoutes } from '../shared/route-folders.ts';

export const {
  table: serverRouteTable,
  views: serverViews,
  handlers: serverHandlers,
} = findRoutes({
  views: import.meta.glob<RouteView>('../../app/routes/**/view.tsx'),
  metas: import.meta.glob<RouteMeta>('../../app/routes/**/meta.ts', { eager: true }),
  loaders: import.meta.glob<{ loader?: unknown }>('../../app/routes/**/loader.server.ts', { eager: true }),
  actions: import.meta.glob<{ action?: unknown }>('../../app/routes/**/action.server.ts', { eager: true }),
});

/** A route file that exists but exports nothing under the expected name: a failed deploy, not a page without data. */
function handlersOf(entry: RouteEntry, handlers: ReadonlyMap<string, ServerHandlers>): ServerHandlers {
  const own = handlers.get(entry.id) ?? {};
  for (const kind of ['loader', 'action'] as const) {
    if (entry[kind] && typeof own[kind] !== 'function') {
      throw new Error(
        `routes/${entry.folder ? `${entry.folder}/` : ''}${kind}.server.ts exports no function "${kind}"`,
      );
    }
  }
  return own;
}

/** Server routes: views imported up front (the server renders synchronously), the folder's loader and action. */
export async function buildServerRoutes(
  table: RouteEntry[],
  views: ViewModules = serverViews,
  handlers: ReadonlyMap<string, ServerHandlers> = serverHandlers,
): Promise<RouteObject[]> {
  const build = async (entry: RouteEntry): Promise<RouteObject> => {
    const own = handlersOf(entry, handlers);
    const view = await viewLoader(views, entry)();
    const children = entry.children ? await Promise.all(entry.children.map(build)) : undefined;
    const common = {
      id: entry.id,
      Component: view.Component,
      ErrorBoundary: RouteErrorBoundary,
      handle: metaHandle(entry.meta),
      ...(own.loader ? { loader: own.loader } : {}),
      ...(own.action ? { action: own.action } : {}),
    };
    if (entry.index) return { ...common, index: true };
    return { ...common, ...(entry.path !== undefined ? { path: entry.path } : {}), ...(children ? { children } : {}) };
  };
  return Promise.all(table.map(build));
}
