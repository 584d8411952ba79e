// The Sentry browser SDK's own chunk, imported at idle time after the page's load, or at once at the page's first
// error (telemetry.ts): nothing of it is on the critical path.
// Set up late, it still reports the whole load: the pageload transaction starts at the navigation's time origin and
// takes its spans and web vitals from the buffered performance timeline; errors and breadcrumbs from before are
// taken from the inline queues (framework/shared/early-errors.ts), and a session a page already sent without the SDK
// (early-send.ts) is continued rather than counted twice.
import { type Breadcrumb, updateSession } from '@sentry/core';
import {
  addBreadcrumb,
  type BrowserClient,
  captureException,
  captureReactException,
  getClient,
  getIsolationScope,
  wrapCreateBrowserRouter,
} from '@sentry/react';
import type { DataRouter } from 'react-router';
import type { ClientConfig } from '../../framework/shared/client-config.ts';
import { stopEarlyCapture, takeEarlyErrors } from '../../framework/shared/early-errors.ts';
import type { EarlySession, Report } from './early-send.ts';
import { traceNavigations } from './navigation-tracing.ts';
import { createSentryClient, initSentry, laterIntegrations } from './sentry.ts';

/**
 * A report that waited for the SDK. A crash (the failure behind the client error screen, or one React could not
 * catch) is unhandled and crashes the session; anything else is a handled error (decision 014).
 */
export function captureReport({ error, crash, componentStack, tags }: Report): void {
  const context = tags ? { captureContext: { tags } } : {};
  if (componentStack !== undefined) {
    // As @sentry/react's reactErrorHandler reports React's root error hooks, with `handled` saying what happened.
    const mechanism = { handled: !crash, type: 'auto.function.react.error_handler' };
    captureReactException(error, { componentStack }, { mechanism, ...context });
  } else if (crash) {
    captureException(error, { mechanism: { handled: false, type: 'auto.browser.error_screen' }, ...context });
  } else {
    captureException(error, tags ? { tags } : undefined);
  }
}

/**
 * The first slice: the client made, not started (its options and transport; a slice of its own, so that neither this
 * nor the start is a long task on a phone). Undefined when Sentry is off.
 */
export function prepareClient(config: ClientConfig['sentry']): BrowserClient | undefined {
  return createSentryClient(config);
}

/**
 * The second slice: the client started (global handlers, breadcrumbs, the session) and what the inline queue recorded
 * before it.
 */
export function startClient(client: BrowserClient, earlier: EarlySession | undefined): void {
  // Before the client starts: stopping puts the native fetch back, which the SDK's transport and breadcrumbs then take
  // as it is (no sandbox iframe, early-errors.ts; the transport is made as the client starts, sentry.ts).
  const breadcrumbs = stopEarlyCapture(window);
  // Same task as the SDK's handlers and recorders: they see everything after this, nothing twice.
  initSentry(client);
  for (const breadcrumb of breadcrumbs) addBreadcrumb(breadcrumb as Breadcrumb);
  const session = getIsolationScope().getSession();
  if (earlier && session) {
    updateSession(session, { sid: earlier.sid, init: false, started: earlier.started, errors: earlier.errors });
    if (earlier.status !== 'ok') updateSession(session, { status: earlier.status });
  }
}

/**
 * Through the handlers the SDK installed, so each early error is reported as if it had been seen live (once: taken
 * from the queue). Called after tracing, so they belong to the pageload's trace, or at once when the page is hidden.
 */
export function replayEarlyErrors(): void {
  for (const event of takeEarlyErrors(window)) {
    if (event instanceof ErrorEvent)
      window.onerror?.(event.message, event.filename, event.lineno, event.colno, event.error);
    else window.onunhandledrejection?.call(window, event);
  }
}

/**
 * The later slices, one per `pause()`, for an already hydrated router: tracing (the pageload transaction is named
 * by the route pattern, as when the router is created through wrapCreateBrowserRouter) and navigations, also one
 * that started the load (it waits for the SDK, see start.tsx); then the early errors.
 */
export async function finishSetup(router: DataRouter | undefined, pause: () => Promise<void>): Promise<void> {
  if (router) {
    const client = getClient();
    for (const integrations of laterIntegrations()) {
      await pause();
      for (const integration of integrations) client?.addIntegration(integration);
    }
    await pause();
    wrapCreateBrowserRouter(() => router)(router.routes as never);
    traceNavigations(router);
  }
  replayEarlyErrors();
}
