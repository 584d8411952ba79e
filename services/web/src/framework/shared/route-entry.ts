// The shape of one entry of a route table (app/route-table.ts is the product's) and of a route's view module, with
// the helpers both sides build their routes with (server-routes.ts, client-routes.ts).
import type { ComponentType } from 'react';
import type { ActionFunction, LoaderFunction } from 'react-router';

/** What a route's code-split module exports. */
export interface RouteView {
  Component: ComponentType;
  /** The document title for this route, from its loader data. The deepest route with a title wins. */
  title?: (data: never) => string;
  /** The page's meta description (and og:description), from its loader data. The deepest route with one wins. */
  description?: (data: never) => string;
  /** The page's language (`<html lang>`) when it differs from the app's. The deepest route with one wins. */
  lang?: string;
}

/**
 * One entry of the route table: the single list from which both the server routes (real loaders and actions) and
 * the browser routes (`loader: true`, lazily loaded views) are built, with the same ids.
 */
export interface RouteEntry {
  id: string;
  path?: string;
  index?: true;
  /** The view's module, relative to the route table (a key of its `views`); the browser loads it as a chunk. */
  view: string;
  /** The route has a server loader / action (the browser asks for its data through the page-data protocol). */
  loader?: true;
  action?: true;
  /**
   * Cookies this route's loader reads. A document rendered while the request carries one of them shows the visitor's
   * own state: it is sent `no-store`, so Back never restores it from the back/forward cache after the state changed.
   */
  cookies?: string[];
  /** Exists only when DIAGNOSTICS=1 (deliberate failures for the end-to-end tests). */
  diagnostics?: true;
  children?: RouteEntry[];
}

export interface ServerHandlers {
  loader?: LoaderFunction;
  action?: ActionFunction;
}

export interface RouteHandle {
  title?: (data: unknown) => string;
  description?: (data: unknown) => string;
  lang?: string;
  /** From `RouteEntry.cookies` (server routes only). */
  cookies?: string[];
}

/** What a view module contributes to its route's handle: its head metadata. */
export function viewHandle(view: RouteView): RouteHandle {
  return {
    ...(view.title ? { title: view.title as (data: unknown) => string } : {}),
    ...(view.description ? { description: view.description as (data: unknown) => string } : {}),
    ...(view.lang ? { lang: view.lang } : {}),
  };
}

/** The table with diagnostics routes removed unless they are enabled: the same filter on both sides. */
export function enabledRoutes(table: RouteEntry[], diagnostics: boolean): RouteEntry[] {
  return table
    .filter((entry) => diagnostics || !entry.diagnostics)
    .map((entry) => (entry.children ? { ...entry, children: enabledRoutes(entry.children, diagnostics) } : entry));
}

export function flattenRoutes(table: RouteEntry[]): RouteEntry[] {
  return table.flatMap((entry) => [entry, ...flattenRoutes(entry.children ?? [])]);
}

/** The view loaders of the table, keyed like `RouteEntry.view` (from `import.meta.glob`). */
export type ViewModules = Record<string, () => Promise<RouteView>>;

export function viewLoader(views: ViewModules, entry: RouteEntry): () => Promise<RouteView> {
  const load = views[`./${entry.view}`];
  if (!load) throw new Error(`route "${entry.id}": no view module ./${entry.view}`);
  return load;
}
