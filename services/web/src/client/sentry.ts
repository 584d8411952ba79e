// The browser SDK, configured from what the server injected (DSN, release, environment, tunnel), initialised before
// the router is created so pageload and navigation transactions get route-pattern names.
import { ignoreErrors } from '@app/telemetry-rules';
import * as Sentry from '@sentry/react';
import { useEffect } from 'react';
import { createRoutesFromChildren, matchRoutes, useLocation, useNavigationType } from 'react-router';
import type { ClientConfig } from '../framework/client-config.ts';
import { TRACING } from '../framework/timing.ts';

export function initSentry(config: ClientConfig['sentry']): void {
  if (!config.dsn) return;
  Sentry.init({
    dsn: config.dsn,
    ...(config.release ? { release: config.release } : {}),
    environment: config.environment,
    // With no tunnel the SDK posts to the DSN's own intake.
    ...(config.tunnel ? { tunnel: config.tunnel } : {}),
    tracesSampleRate: config.tracesSampleRate,
    // Transactions as events: the specification's "1000 spans per transaction" is the SDK's fixed cap
    // (MAX_SPAN_COUNT in @sentry/core); it is not an option.
    traceLifecycle: 'static',
    ignoreErrors,
    maxBreadcrumbs: TRACING.maxBreadcrumbs,
    transportOptions: { bufferSize: TRACING.transportBufferSize },
    integrations: [
      Sentry.reactRouterBrowserTracingIntegration({
        useEffect,
        useLocation,
        useNavigationType,
        createRoutesFromChildren,
        matchRoutes,
        enableAsyncRouteHandlers: true,
        idleTimeout: TRACING.idleTimeout,
        finalTimeout: TRACING.finalTimeout,
        childSpanTimeout: TRACING.childSpanTimeout,
      }),
    ],
  });
}
