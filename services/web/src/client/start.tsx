// Starting the app in the browser (entry.tsx calls start()): Sentry first, then the routes (the matched ones' code
// loaded before hydrating, so hydration renders exactly what the server sent and fetches nothing), then the router,
// then hydrateRoot.
import * as Sentry from '@sentry/react';
import { useEffect } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { createBrowserRouter, isRouteErrorResponse, matchRoutes, type RouteObject } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { routeTable, views } from '../app/route-table.ts';
import '../app/styles.css';
import { readClientConfig } from '../framework/client-config.ts';
import { buildClientRoutes } from '../framework/client-routes.ts';
import { enabledRoutes, flattenRoutes } from '../framework/route-table.ts';
import { createDataStrategy } from './data-strategy.ts';
import { reviveDeferredHydration } from './deferred-data.ts';
import { createRouteCode } from './lazy-route.ts';
import { traceNavigations } from './navigation-tracing.ts';
import { createPrefetcher } from './prefetch.ts';
import { initSentry } from './sentry.ts';

declare global {
  interface Window {
    /** Set once the app is hydrated (tests use it to tell client navigations from full page loads). */
    __appHydrated?: boolean;
    /** Only with DIAGNOSTICS=1: what the end-to-end tests inspect. */
    __appDiagnostics?: { prefetchCacheSize(): number };
  }
}

const config = readClientConfig(document);

const table = enabledRoutes(routeTable, config.diagnostics);
const entries = new Map(flattenRoutes(table).map((entry) => [entry.id, entry]));
const routeCode = createRouteCode(views);
const routes = buildClientRoutes(table, (entry) => routeCode.load(entry));
const prefetcher = createPrefetcher({ routes, entries, routeCode });

/** Resolves the lazy properties of the routes matched at load, so the router starts "initialized". */
async function resolveInitialRoutes(all: RouteObject[]): Promise<void> {
  for (const { route } of matchRoutes(all, window.location) ?? []) {
    const lazy = route.lazy;
    if (!lazy || typeof lazy === 'function') continue;
    const resolved = await Promise.all(
      Object.entries(lazy).map(async ([key, load]) => [key, await (load as () => Promise<unknown>)()] as const),
    );
    Object.assign(route, Object.fromEntries(resolved));
    delete route.lazy;
  }
}

function HydrationMark() {
  useEffect(() => {
    performance.mark('app:hydrated');
    window.__appHydrated = true;
    // The widget's code is its own chunk, loaded once the page is interactive.
    const add = () => import('./feedback.ts').then((m) => m.addFeedbackWidget(config.styleNonce));
    if ('requestIdleCallback' in window) requestIdleCallback(() => void add(), { timeout: 2_000 });
    else setTimeout(() => void add(), 200);
  }, []);
  return null;
}

// React 19's root error hooks: to the console (as React would by default) and to Sentry, once per error.
const captureReactError = Sentry.reactErrorHandler((error) => console.error(error));
function reportReactError(error: unknown, info: { componentStack?: string | undefined }): void {
  captureReactError(error, { componentStack: info.componentStack ?? null });
}

/** Resolves after the browser has painted the server's HTML: nothing of ours delays first paint. */
const afterFirstPaint = () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

export async function start(): Promise<void> {
  // Routes' code starts loading at once (it is preloaded anyway); Sentry and hydration wait for the first paint.
  // The pageload transaction still starts at navigation start (the SDK reads the performance timeline).
  const routesReady = resolveInitialRoutes(routes);
  routesReady.catch(() => {}); // handled below, after the paint
  await afterFirstPaint();
  performance.mark('app:sentry-init');
  initSentry(config.sentry);
  performance.measure('app:sentry-init', 'app:sentry-init');
  try {
    await routesReady;
  } catch (error) {
    // Never reload here (that could loop): the server-rendered page keeps working with plain links and forms.
    console.warn('[router] route code did not load; the page stays server-rendered', error);
    return;
  }
  reviveDeferredHydration();
  const router = Sentry.wrapCreateBrowserRouter(createBrowserRouter)(routes, {
    dataStrategy: createDataStrategy(prefetcher),
  });
  routeCode.attach(router);
  if (config.sentry.dsn) traceNavigations(router);
  const container = document.getElementById('root');
  if (!container) throw new Error('no #root element to hydrate');
  hydrateRoot(
    container,
    <>
      <RouterProvider
        router={router}
        onError={(error, info) => {
          // Render errors reach onCaughtError below; server failures and 404s were handled by the server.
          if (info.errorInfo || isRouteErrorResponse(error)) return;
          Sentry.captureException(error, { tags: { route: info.pattern } });
        }}
      />
      <HydrationMark />
    </>,
    {
      onUncaughtError: reportReactError,
      onCaughtError: reportReactError,
      onRecoverableError: reportReactError,
    },
  );
  prefetcher.start(router);
  if (config.diagnostics) window.__appDiagnostics = { prefetchCacheSize: () => prefetcher.size };
}
