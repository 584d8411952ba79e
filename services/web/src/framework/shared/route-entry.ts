// The shape of a route as the framework finds it in src/app/routes/ (route-folders.ts reads the folders), of the
// modules a route folder holds, and the helpers both sides build their routes with.
import type { ComponentType } from 'react';
import type { ActionFunction, LoaderFunction } from 'react-router';

/** What a route's view module (view.tsx, its own chunk in the browser) exports. */
export interface RouteView {
  Component: ComponentType;
}

/** What a route's meta module (meta.ts, bundled into the entry: keep it light) may export. */
export interface RouteMeta {
  /** The document title, given the route's loader data. The deepest route with a title wins. */
  title?: (data: never) => string;
  /** The page's meta description (and og:description), from its loader data. The deepest route with one wins. */
  description?: (data: never) => string;
  /** The page's language (`<html lang>`) when it differs from the app's. The deepest route with one wins. */
  lang?: string;
  /**
   * Cookies this route's loader reads. A document rendered while the request carries one of them shows the visitor's
   * own state: it is sent `no-store`, so Back never restores it from the back/forward cache after the state changed.
   */
  cookies?: readonly string[];
  /** Exists only when DIAGNOSTICS=1 (deliberate failures for the end-to-end tests). */
  diagnostics?: boolean;
}

/** One route of the tree found in src/app/routes/: the same ids and flags on both sides. */
export interface RouteEntry {
  id: string;
  path?: string;
  index?: true;
  /** The route's folder under src/app/routes/ ('' for the root layout). */
  folder: string;
  /** The view module under src/app (`routes/<folder>/view.tsx`): a key of the view loaders and of Vite's manifest. */
  view: string;
  /** The folder holds loader.server.ts / action.server.ts (the browser asks for them through page data). */
  loader?: true;
  action?: true;
  meta: RouteMeta;
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
  cookies?: readonly string[];
}

/** What a route's meta module contributes to its handle. */
export function metaHandle(meta: RouteMeta): RouteHandle {
  return {
    ...(meta.title ? { title: meta.title as (data: unknown) => string } : {}),
    ...(meta.description ? { description: meta.description as (data: unknown) => string } : {}),
    ...(meta.lang ? { lang: meta.lang } : {}),
    ...(meta.cookies ? { cookies: meta.cookies } : {}),
  };
}

/** The tree with diagnostics routes removed unless they are enabled: the same filter on both sides. */
export function enabledRoutes(table: RouteEntry[], diagnostics: boolean): RouteEntry[] {
  return table
    .filter((entry) => diagnostics || !entry.meta.diagnostics)
    .map((entry) => (entry.children ? { ...entry, children: enabledRoutes(entry.children, diagnostics) } : entry));
}

export function flattenRoutes(table: RouteEntry[]): RouteEntry[] {
  return table.flatMap((entry) => [entry, ...flattenRoutes(entry.children ?? [])]);
}

/** The view loaders, keyed like `RouteEntry.view` (from `import.meta.glob`). */
export type ViewModules = Record<string, () => Promise<RouteView>>;

export function viewLoader(views: ViewModules, entry: RouteEntry): () => Promise<RouteView> {
  const load = views[entry.view];
  if (!load) throw new Error(`route "${entry.id}": no view module ${entry.view}`);
  return load;
}
