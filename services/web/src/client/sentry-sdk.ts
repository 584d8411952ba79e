// The Sentry browser SDK's own chunk, imported at idle time after the page's load (telemetry.ts): nothing of it is on
// the critical path.
// Set up late, it still reports the whole load: the pageload transaction starts at the navigation's time origin and
// takes its spans and web vitals from the buffered performance timeline; errors from before are replayed.
import { captureException, captureReactException, wrapCreateBrowserRouter } from '@sentry/react';
import type { DataRouter } from 'react-router';
import type { ClientConfig } from '../framework/client-config.ts';
import { takeEarlyErrors } from '../framework/early-errors.ts';
import { traceNavigations } from './navigation-tracing.ts';
import { initSentry, laterIntegrations } from './sentry.ts';

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
 * Starts the SDK for an already hydrated router, a slice of setup per `pause()` (see sentry.ts): the pageload
 * transaction is named by the route pattern (as when the router is created through wrapCreateBrowserRouter) and
 * navigations get transactions, also one that started the load (it waits for the SDK, see start.tsx).
 */
export async function startSentry(
  config: ClientConfig['sentry'],
  router: DataRouter,
  pause: () => Promise<void>,
): Promise<void> {
  const client = initSentry(config);
  // Same task as the global handlers' setup: from here on errors reach the SDK, none twice.
  const early = takeEarlyErrors(window);
  if (!client) return;
  for (const integrations of laterIntegrations()) {
    await pause();
    for (const integration of integrations) client.addIntegration(integration);
  }
  await pause();
  wrapCreateBrowserRouter(() => router)(router.routes as never);
  traceNavigations(router);
  // Through the handlers the SDK installed, so each is reported as if it had been seen live (once: the inline
  // listeners are gone); after tracing, as before, so they belong to the pageload's trace.
  for (const event of early) {
    if (event instanceof ErrorEvent)
      window.onerror?.(event.message, event.filename, event.lineno, event.colno, event.error);
    else window.onunhandledrejection?.call(window, event);
  }
}
