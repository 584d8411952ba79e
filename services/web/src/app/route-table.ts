// The product's routes: the one list from which the server and the browser build their routes (see
// framework/shared/route-entry.ts). A team replacing the example edits this file, server-handlers.ts and the views.
import type { RouteEntry, RouteView } from '../framework/shared/route-entry.ts';

export const APP_NAME = 'Example Store';

/** Every view module of the product, by path (Vite turns each into its own chunk). */
export const views = import.meta.glob<RouteView>(['./**/*.tsx']);

export const routeTable: RouteEntry[] = [
  {
    id: 'root',
    path: '/',
    loader: true,
    // The layout shows the theme and greeting chosen on the preferences page.
    cookies: ['prefs'],
    view: 'routes/view.tsx',
    children: [
      { id: 'home', index: true, view: 'routes/_index/view.tsx' },
      { id: 'catalog-list', path: 'catalog', loader: true, view: 'routes/catalog/view.tsx' },
      { id: 'catalog-item', path: 'catalog/:slug', loader: true, view: 'routes/catalog.$slug/view.tsx' },
      {
        id: 'preferences',
        path: 'preferences',
        loader: true,
        action: true,
        cookies: ['prefs'],
        view: 'routes/preferences/view.tsx',
      },
      {
        id: 'diagnostics',
        path: 'diagnostics/:failure',
        loader: true,
        diagnostics: true,
        view: 'routes/diagnostics.$failure/view.tsx',
      },
      { id: 'not-found', path: '*', loader: true, view: 'routes/$/view.tsx' },
    ],
  },
];
