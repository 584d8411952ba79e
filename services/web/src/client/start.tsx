// Starting the app in the browser (entry.tsx calls start()): the routes (the matched ones' code loaded before
// hydrating, so hydration renders exactly what the server sent and fetches nothing), then the router, then
// hydrateRoot, then the Sentry SDK at idle time (telemetry.ts: reports made before it arrives wait for it).
import { startTransition, useEffect } from 'react';
import { hydrateRoot } from 'react-dom/client';
import {
  createBrowserRouter,
  type DataRouter,
  isRouteErrorResponse,
  matchRoutes,
  type RouteObject,
} from 'react-router';
import { RouterProvider } from 'react-router/dom';
import '../app/styles.css';
import { buildClientRoutes, clientRouteTable, clientViews } from '../framework/browser/client-routes.ts';
import { readClientConfig } from '../framework/shared/client-config.ts';
import { ErrorScreenShown } from '../framework/shared/error-screens.tsx';
import { enabledRoutes, flattenRoutes } from '../framework/shared/route-entry.ts';
import { idleSlices, nextTask } from './idle.ts';
import { createDataStrategy } from './navigation/data-strategy.ts';
import { reviveDeferredHydration } from './navigation/deferred-receiver.ts';
import { createRouteCode } from './navigation/lazy-route.ts';
import { createPrefetcher } from './navigation/prefetch.ts';
import { setPageToken } from './telemetry/page-token.ts';
import {
  captureException,
  errorScreenShown,
  loadSentryWhenIdle,
  noRouter,
  reportReactError,
  reportUncaughtReactError,
  sentrySettled,
  startTelemetry,
} from './telemetry/telemetry.ts';

declare global {
  interface Window {
    /** Set once the app is hydrated (tests use it to tell client navigations from full page loads). */
    __appHydrated?: boolean;
    /** Only with DIAGNOSTICS=1: what the end-to-end tests inspect. */
    __appDiagnostics?: { prefetchCacheSize(): number };
  }
}

/** The page's settings, routes and prefetcher: made by start(), in a task after the modules' evaluation. */
function prepare() {
  const config = readClientConfig(document);
  setPageToken(config.pageToken);
  const table = enabledRoutes(clientRouteTable, config.diagnostics);
  const entries = new Map(flattenRoutes(table).map((entry) => [entry.id, entry]));
  const routeCode = createRouteCode(clientViews);
  const routes = buildClientRoutes(table, (entry) => routeCode.load(entry));
  const prefetcher = createPrefetcher({ routes, entries, routeCode });
  return { config, routeCode, routes, prefetcher };
}

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

function HydrationMark({ router, styleNonce }: { router: DataRouter; styleNonce: string | undefined }) {
  useEffect(() => {
    performance.mark('app:hydrated');
    window.__appHydrated = true;
    // The SDK and then the feedback widget (which needs its client) are their own chunks, loaded once the page is
    // interactive.
    void loadSentryWhenIdle(router).then(async (sdk) => {
      if (!sdk) return;
      await idleSlices.next();
      (await import('./telemetry/feedback.ts')).addFeedbackWidget(styleNonce);
    });
  }, [router, styleNonce]);
  return null;
}

/** How long a navigation started while the Sentry SDK loads waits for it (for its trace); after that it goes on. */
const SENTRY_WAIT_MS = 1_000;

/** Resolves after the browser has painted the server's HTML: nothing of ours delays first paint. */
const afterFirstPaint = () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

export async function start(): Promise<void> {
  // Evaluating the app's modules (React DOM, the router) is one task already: what start does is the next one, so
  // neither is a long task on a phone (docs/benchmarks.md, "The main thread").
  await nextTask();
  const { config, routeCode, routes, prefetcher } = prepare();
  startTelemetry(config.sentry);
  // Routes' code starts loading at once (it is preloaded anyway); hydration waits for the first paint.
  const routesReady = resolveInitialRoutes(routes);
  routesReady.catch(() => {}); // handled below, after the paint
  await afterFirstPaint();
  try {
    await routesReady;
  } catch (error) {
    // Never reload here (that could loop): the server-rendered page keeps working with plain links and forms.
    console.warn('[router] route code did not load; the page stays server-rendered', error);
    noRouter();
    return;
  }
  reviveDeferredHydration();
  const router = createBrowserRouter(routes, {
    // The first navigation may start the SDK's load (telemetry.ts); its request waits for it, at most briefly (a
    // prefetched page, shown without a request, does not wait).
    dataStrategy: createDataStrategy(prefetcher, () => sentrySettled(SENTRY_WAIT_MS)),
  });
  routeCode.attach(router);
  // The router's setup and hydration are tasks of their own.
  await nextTask();
  const container = document.getElementById('root');
  if (!container) throw new Error('no #root element to hydrate');
  // In a transition React hydrates time-sliced (yielding to the browser every ~5 ms) rather than in one long task; a
  // click before it is done makes React finish hydrating at once and replay the event.
  startTransition(() => {
    hydrateRoot(
      container,
      <ErrorScreenShown.Provider value={errorScreenShown}>
        <RouterProvider
          router={router}
          onError={(error, info) => {
            // Render errors reach onCaughtError below; server failures and 404s were handled by the server; an error
            // in the router's state is shown by the route's error screen, which reports it (as a crash).
            if (info.errorInfo || isRouteErrorResponse(error)) return;
            if (Object.values(router.state.errors ?? {}).includes(error)) return;
            captureException(error, { route: info.pattern });
          }}
        />
        <HydrationMark router={router} styleNonce={config.styleNonce} />
      </ErrorScreenShown.Provider>,
      {
        onUncaughtError: reportUncaughtReactError,
        onCaughtError: reportReactError,
        onRecoverableError: reportReactError,
      },
    );
  });
  prefetcher.start(router);
  if (config.diagnostics) window.__appDiagnostics = { prefetchCacheSize: () => prefetcher.size };
}
