// The server's routes from the route table, checked against the handlers at startup.
import type { RouteObject } from 'react-router';
import { RouteErrorBoundary } from '../shared/error-screens.tsx';
import {
  flattenRoutes,
  type RouteEntry,
  type RouteHandle,
  type ServerHandlers,
  type ViewModules,
  viewHandle,
  viewLoader,
} from '../shared/route-entry.ts';

/**
 * Server routes from the route table: views imported up front (the server renders synchronously), the real loader
 * and action attached by id. Throws at startup when the table and the handlers disagree, so a missing loader is a
 * failed deploy rather than a page that silently has no data.
 */
export async function buildServerRoutes(
  table: RouteEntry[],
  views: ViewModules,
  handlers: Record<string, ServerHandlers>,
): Promise<RouteObject[]> {
  const ids = new Set(flattenRoutes(table).map((entry) => entry.id));
  for (const id of Object.keys(handlers)) {
    if (!ids.has(id)) throw new Error(`server handlers name route "${id}", which is not in the route table`);
  }
  const build = async (entry: RouteEntry): Promise<RouteObject> => {
    const own = handlers[entry.id] ?? {};
    for (const kind of ['loader', 'action'] as const) {
      if (Boolean(entry[kind]) !== Boolean(own[kind])) {
        throw new Error(
          `route "${entry.id}": the table says ${kind}=${Boolean(entry[kind])} but the handlers disagree`,
        );
      }
    }
    const view = await viewLoader(views, entry)();
    const handle: RouteHandle = {
      ...viewHandle(view),
      ...(entry.cookies ? { cookies: entry.cookies } : {}),
    };
    const children = entry.children ? await Promise.all(entry.children.map(build)) : undefined;
    const common = {
      id: entry.id,
      Component: view.Component,
      ErrorBoundary: RouteErrorBoundary,
      handle,
      ...(own.loader ? { loader: own.loader } : {}),
      ...(own.action ? { action: own.action } : {}),
    };
    if (entry.index) return { ...common, index: true };
    return { ...common, ...(entry.path !== undefined ? { path: entry.path } : {}), ...(children ? { children } : {}) };
  };
  return Promise.all(table.map(build));
}
