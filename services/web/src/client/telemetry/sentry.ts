// The browser SDK, configured from what the server injected (DSN, release, environment, tunnel). Part of the SDK's
// lazy chunk: sentry-sdk.ts sets it up at idle time after the page's load and then instruments the router.
//
// Built from its parts (BrowserClient + an explicit integration list, as Sentry documents for tree-shaking default
// integrations) rather than with `Sentry.init`, whose default list is always bundled even with
// `defaultIntegrations: false`. Left out, and so not shipped: browserApiErrors (wraps every timer and event listener
// to catch what the global handlers already see for our same-origin scripts) with functionToString (only there for
// those wrappers), and conversationId (AI conversations). Decision 005 (docs/decisions/) has the measured saving.
// The culture context is our own (culture-context.ts): Sentry's context, but not on transactions.
import { ignoreErrors } from '@app/telemetry-rules';
import { applySdkMetadata, type Integration, type Transport } from '@sentry/core';
import {
  BrowserClient,
  breadcrumbsIntegration,
  browserSessionIntegration,
  consoleIntegration,
  dedupeIntegration,
  defaultStackParser,
  eventFiltersIntegration,
  globalHandlersIntegration,
  httpContextIntegration,
  linkedErrorsIntegration,
  makeFetchTransport,
  reactRouterBrowserTracingIntegration,
  setContext,
  setCurrentClient,
} from '@sentry/react';
import { version as reactVersion, useEffect } from 'react';
import { createRoutesFromChildren, matchRoutes, useLocation, useNavigationType } from 'react-router';
import type { ClientConfig } from '../../framework/shared/client-config.ts';
import { TRACING } from '../../framework/shared/timing.ts';
import { cultureContextIntegration } from './culture-context.ts';
import { trackPageSession } from './page-session.ts';
import { transportHeaders } from './page-token.ts';

/** A transport that exists with the client but makes the SDK's fetch transport only when `make` is called. */
type TransportMadeLater = Transport & { make(): Transport };

/**
 * The fetch transport is made when the client starts (initSentry): made with the client, a slice earlier, it would
 * find the inline script's `fetch` wrapper (early-errors.ts) still there, and later the SDK's own breadcrumbs wrapper;
 * either way it would take a clean `fetch` from a hidden iframe.
 */
const transportMadeAtStart = (options: Parameters<typeof makeFetchTransport>[0]): TransportMadeLater => {
  let transport: Transport | undefined;
  const make = () => {
    transport ??= makeFetchTransport(options);
    return transport;
  };
  return { make, send: (request) => make().send(request), flush: (timeout) => make().flush(timeout) };
};

/**
 * Set up in slices (sentry-sdk.ts): first the client is only made (options, transport: nothing of the page changes,
 * the inline recorders keep recording), then in the next slice it starts with what reports an error as it should
 * (handlers, filters, the event's context, the session) and what records the page (breadcrumbs, console: in the same
 * task as the global handlers, so the inline recorders of framework/shared/early-errors.ts hand over without a gap), then
 * tracing.
 */
export function createSentryClient(config: ClientConfig['sentry']): BrowserClient | undefined {
  if (!config.dsn) return undefined;
  const options = {
    dsn: config.dsn,
    ...(config.release ? { release: config.release } : {}),
    environment: config.environment,
    // With no tunnel the SDK posts to the DSN's own intake.
    ...(config.tunnel ? { tunnel: config.tunnel } : {}),
    tracesSampleRate: config.tracesSampleRate,
    // Put in the trace's baggage, so the server (strictTraceContinuation) continues this page's traces.
    ...(config.orgId ? { orgId: config.orgId as `${number}` } : {}),
    // Transactions as events: the specification's "1000 spans per transaction" is the SDK's fixed cap for them
    // (MAX_SPAN_COUNT in @sentry/core), not an option; e2e/web/telemetry-limits.test.ts shows it.
    traceLifecycle: 'static' as const,
    maxBreadcrumbs: TRACING.maxBreadcrumbs,
    transport: transportMadeAtStart,
    // The relay's page token (page-token.ts): one object, renewed in place, read by the transport on every send;
    // only to our own tunnel (Sentry's intake would refuse the header in a CORS preflight).
    transportOptions: {
      bufferSize: TRACING.transportBufferSize,
      ...(config.tunnel ? { headers: transportHeaders } : {}),
    },
    stackParser: defaultStackParser,
    integrations: [
      // ignoreErrors lives here when the client is built by hand (Sentry.init passes it through the same way).
      eventFiltersIntegration({ ignoreErrors }),
      globalHandlersIntegration(),
      linkedErrorsIntegration(),
      dedupeIntegration(),
      httpContextIntegration(),
      cultureContextIntegration(),
      browserSessionIntegration(),
      breadcrumbsIntegration(),
      consoleIntegration(),
    ],
  };
  // What @sentry/react's init adds: the SDK name (events say sentry.javascript.react) and the React context.
  applySdkMetadata(options, 'react');
  return new BrowserClient(options);
}

/** Starts a client made by createSentryClient: from here on the SDK sees the page's errors and records it. */
export function initSentry(client: BrowserClient): void {
  // The browser's own fetch is back (the inline recorders stopped) and not yet wrapped by the SDK's breadcrumbs.
  (client.getTransport() as TransportMadeLater | undefined)?.make();
  setCurrentClient(client);
  client.init();
  trackPageSession(client);
  setContext('react', { version: reactVersion });
}

/** Added to the client after initSentry, each in its own slice (tracing last: it starts the pageload transaction). */
export function laterIntegrations(): Integration[][] {
  return [
    [
      reactRouterBrowserTracingIntegration({
        useEffect,
        useLocation,
        useNavigationType,
        createRoutesFromChildren,
        matchRoutes,
        enableAsyncRouteHandlers: true,
        // Navigations are started by navigation-tracing.ts, when the router starts them rather than when it commits.
        instrumentNavigation: false,
        idleTimeout: TRACING.idleTimeout,
        finalTimeout: TRACING.finalTimeout,
        childSpanTimeout: TRACING.childSpanTimeout,
      }),
    ],
  ];
}
