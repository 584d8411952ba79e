// The Sentry browser SDK's own chunk, imported after hydration (telemetry.ts): nothing of it is on the critical path.
// Set up late, it still reports the whole load: the pageload transaction starts at the navigation's time origin and
// takes its spans and web vitals from the buffered performance timeline; errors from before are replayed.
import { captureException, captureReactException, wrapCreateBrowserRouter } from '@sentry/react';
import type { DataRouter } from 'react-router';
import type { ClientConfig } from '../framework/client-config.ts';
import { takeEarlyErrors } from '../framework/early-errors.ts';
import { traceNavigations } from './navigation-tracing.ts';
import { initSentry } from './sentry.ts';

export { captureException };

/** React's root error hooks, as @sentry/react's reactErrorHandler with a callback reports them (handled). */
export function captureReactError(error: unknown, componentStack: string | undefined): void {
  captureReactException(
    error,
    { componentStack: componentStack ?? '' },
    { mechanism: { handled: true, type: 'auto.function.react.error_handler' } },
  );
}

/**
 * Starts the SDK for an already hydrated router: the pageload transaction is named by the route pattern (as when
 * the router is created through wrapCreateBrowserRouter) and navigations get transactions, also one that started
 * the load (it waits for the SDK, see start.tsx).
 */
export function startSentry(config: ClientConfig['sentry'], router: DataRouter): void {
  const early = takeEarlyErrors(window);
  if (!config.dsn) return;
  initSentry(config);
  wrapCreateBrowserRouter(() => router)(router.routes as never);
  traceNavigations(router);
  // Through the handlers the SDK just installed, so each is reported as if it had been seen live (once: the inline
  // listeners are gone).
  for (const event of early) {
    if (event instanceof ErrorEvent)
      window.onerror?.(event.message, event.filename, event.lineno, event.colno, event.error);
    else window.onunhandledrejection?.call(window, event);
  }
}
