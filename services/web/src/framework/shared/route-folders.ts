// The route convention (docs/web.md, "Add a route"): every folder under src/app/routes/ with a view.tsx is a
// route, nested by directory, its path spelled by its name. Each side finds the files with import.meta.glob
// (framework/server, framework/browser); this turns them into one tree, so no list of routes is kept anywhere.
import type { RouteEntry, RouteMeta, RouteView, ServerHandlers, ViewModules } from './route-entry.ts';

/** The route folders' files as import.meta.glob returns them, keyed `…/app/routes/<folder>/<file>`. */
export interface RouteGlobs {
  views: Record<string, () => Promise<RouteView>>;
  metas: Record<string, RouteMeta>;
  /** Module namespaces: in the browser build, build/server-only.ts makes them empty (the file exists, no code). */
  loaders: Record<string, { loader?: unknown }>;
  actions: Record<string, { action?: unknown }>;
}

export interface FoundRoutes {
  /** The root layout's route, every other route below it. */
  table: RouteEntry[];
  /** View loaders keyed like `RouteEntry.view`. */
  views: ViewModules;
  /** Loader and action exports by route id (empty in the browser). */
  handlers: Map<string, ServerHandlers>;
}

const ROUTES_DIR = 'app/routes/';
const PARAM = /^\$[A-Za-z_]\w*$/;
const LITERAL = /^[A-Za-z0-9][\w-]*$/;

/** The folder of a glob key: what lies between app/routes/ and the file's name ('' for the root layout). */
export function folderOf(key: string): string {
  const at = key.indexOf(ROUTES_DIR);
  if (at < 0) throw new Error(`${key} is not under ${ROUTES_DIR}`);
  const rest = key.slice(at + ROUTES_DIR.length);
  return rest.includes('/') ? rest.slice(0, rest.lastIndexOf('/')) : '';
}

const parentOf = (folder: string) => (folder.includes('/') ? folder.slice(0, folder.lastIndexOf('/')) : '');

/**
 * The path of a folder name, relative to its parent route: `.` separates segments, `$name` is a parameter, `$` (last)
 * the rest of the URL, `_index` the parent's own URL.
 */
export function pathOf(name: string): { index: true } | { path: string } {
  if (name === '_index') return { index: true };
  const parts = name.split('.');
  const segments = parts.map((part, i) => {
    if (part === '$' && i === parts.length - 1) return '*';
    if (PARAM.test(part)) return `:${part.slice(1)}`;
    if (LITERAL.test(part)) return part;
    throw new Error(`route folder "${name}": "${part}" is not a segment (a word, $name, $ last, or _index alone)`);
  });
  return { path: segments.join('/') };
}

/** Groups one glob's values by folder, refusing a file whose folder is no route (it has no view.tsx). */
function byFolder<T>(glob: Record<string, T>, routes: ReadonlySet<string>): Map<string, T> {
  const found = new Map<string, T>();
  for (const [key, value] of Object.entries(glob)) {
    const folder = folderOf(key);
    if (!routes.has(folder)) throw new Error(`${key}: its folder has no view.tsx, so it is no route`);
    found.set(folder, value);
  }
  return found;
}

export function findRoutes(globs: RouteGlobs): FoundRoutes {
  const viewKeys = new Map(Object.keys(globs.views).map((key) => [folderOf(key), key]));
  const routes = new Set(viewKeys.keys());
  if (!routes.has('')) throw new Error(`${ROUTES_DIR}view.tsx, the root layout, is missing`);
  for (const folder of routes) {
    if (folder !== '' && !routes.has(parentOf(folder))) {
      throw new Error(`route folder "${folder}" sits in "${parentOf(folder)}", which has no view.tsx`);
    }
  }
  const metas = byFolder(globs.metas, routes);
  const loaders = byFolder(globs.loaders, routes);
  const actions = byFolder(globs.actions, routes);
  const viewOf = (folder: string) => `routes/${folder ? `${folder}/` : ''}view.tsx`;
  const handlers = new Map<string, ServerHandlers>();
  const entry = (folder: string): RouteEntry => {
    const id = folder || 'root';
    const children = [...routes].filter((f) => f !== '' && f !== folder && parentOf(f) === folder).sort();
    const where = folder === '' ? { path: '/' } : pathOf(folder.slice(folder.lastIndexOf('/') + 1));
    if ('index' in where && children.length > 0) throw new Error(`route folder "${folder}": an index has no children`);
    const loader = loaders.get(folder)?.loader;
    const action = actions.get(folder)?.action;
    if (loader || action)
      handlers.set(id, { ...(loader ? { loader } : {}), ...(action ? { action } : {}) } as ServerHandlers);
    return {
      id,
      ...where,
      folder,
      view: viewOf(folder),
      ...(loaders.has(folder) ? { loader: true as const } : {}),
      ...(actions.has(folder) ? { action: true as const } : {}),
      meta: metas.get(folder) ?? {},
      ...(children.length > 0 ? { children: children.map(entry) } : {}),
    };
  };
  const table = [entry('')];
  const views = Object.fromEntries([...viewKeys].map(([folder, key]) => [viewOf(folder), globs.views[key]]));
  return { table, views: views as ViewModules, handlers };
}
