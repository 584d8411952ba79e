// The web service assembled: routes, security headers, load shedding, assets and the tunnel, not yet listening.
import type { RequestListener } from 'node:http';
import { type AdminPort, createFrontDoor, lingerLimits, lingerWhileUnread, type ServiceApp } from '@app/service-kit';
import { routeSettings } from '../app/settings.ts';
import { APP_NAME } from '../app/site.ts';
import { buildServerRoutes, serverRouteTable } from '../framework/server/server-routes.ts';
import type { ClientConfig } from '../framework/shared/client-config.ts';
import { enabledRoutes, flattenRoutes } from '../framework/shared/route-entry.ts';
import type { Config } from './config.ts';
import { screenForwardedHeaders } from './http/forwarded-headers.ts';
import { registerSecurityHeaders, securityHeaders } from './http/security-headers.ts';
import { staticAssets } from './http/static-assets.ts';
import { createLoadShedder } from './ops/load-shedding.ts';
import { createMetrics, type Metrics, recordRequests } from './ops/metrics.ts';
import { logRequests, requestLogger, sampledRequestLog } from './ops/request-log.ts';
import type { Assets } from './pages/assets.ts';
import { answerServerFailure } from './pages/failures.ts';
import { createPages, pagesRoute } from './pages/page-route.ts';
import { dsnOrigin, securityReportUrl } from './telemetry/endpoints.ts';
import { createPageTokens } from './telemetry/page-tokens.ts';
import { TUNNEL_BODY_LIMIT, tunnelProxy } from './telemetry/tunnel-proxy.ts';

/** As the relay's: 5 s, and twice the largest body this service reads (its development tunnel's, decision 039). */
const REFUSED_BODY_LINGER = lingerLimits(5_000, TUNNEL_BODY_LIMIT);

export interface BuildOptions {
  assets: Assets;
  /** Directory of the built client (served under /assets/); absent in dev, where Vite serves the code. */
  clientDir?: string;
  dev?: boolean;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): unknown };
  /** Lets the dev server put Vite's middleware in front of Fastify (behind the front door's lanes). */
  wrapFastify?: (fastify: RequestListener) => RequestListener;
}

export interface WebApp extends ServiceApp {
  metrics: Metrics;
  /** /metrics, /healthz and /readyz on METRICS_PORT when it is set (listening once the app is ready). */
  adminPort?: AdminPort;
}

/** Builds the service without listening, so tests can use inject() or a loopback port. */
export async function buildApp(config: Config, options: BuildOptions): Promise<WebApp> {
  const metrics = createMetrics({ version: config.sentry.release ?? 'dev', revision: config.revision });
  const shedder = createLoadShedder({ limits: config.loadShedding, metrics });
  // Behind the edge, the scheme and host the browser used (the Origin check, canonical URLs) are forwarded.
  const trustProxy = (_address: string, hop: number) => hop < config.trustedProxyHops;
  const door = await createFrontDoor('web', config.server, {
    // Replaced by logRequests below: one sampled line per request, every failure logged.
    skipRequestLog: () => true,
    // With an admin port, the reasons (heap, RSS, event loop while shedding) are told there only.
    briefReadiness: config.metricsPort !== undefined,
    trustedProxyHops: config.trustedProxyHops,
    ...(options.logStream ? { logStream: options.logStream } : {}),
    connections: config.connections,
    metricsPort: config.metricsPort,
    // A bad URL's 400 (service-kit's framework-errors.ts) sent before a body arrived.
    refusedBodyLinger: { limits: REFUSED_BODY_LINGER },
    ...(options.wrapFastify ? { wrapFastify: options.wrapFastify } : {}),
    fastify: {
      trustProxy,
      // Page URLs are the router's business, however long their segments.
      routerOptions: { maxParamLength: 2048 },
      // Log lines of a request carry its trace id, so logs and Sentry traces can be joined. Bound when Fastify makes
      // the request's logger (inside the request's Sentry span), rather than by a second child logger per request.
      childLoggerFactory: requestLogger,
    },
  });
  const { app, readiness } = door;
  const screenForwarded = screenForwardedHeaders(config);
  if (screenForwarded) door.addLane('forwarded-headers', screenForwarded);
  // Load shedding answers ahead of everything else (load-shedding.ts says why); pages go through Fastify
  // (docs/decisions/020-one-front-door.md).
  door.addLane('load-shedding', shedder.lane);
  await shedder.register(app, readiness);
  recordRequests(app, metrics);
  const requestLog = sampledRequestLog({ sampleEvery: config.logSampleEvery });
  logRequests(app, requestLog);

  // Failures outside the page handler (a bug in this service): the same screen and digest, nothing internal.
  app.setErrorHandler((error: Error & { statusCode?: number }, req, reply) => {
    // A body refused before it all arrived (413) closes the connection: lingering, so the client reads the answer.
    lingerWhileUnread(req.raw, REFUSED_BODY_LINGER);
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    if (status < 500) return reply.code(status).send(error);
    return answerServerFailure(error, status, req, reply);
  });
  const { dsn, environment, release, tunnelPath, tunnelTarget } = config.sentry;
  const security = securityHeaders({
    dev: options.dev ?? false,
    // Direct mode: the browser SDK posts to the DSN's intake, the one other origin the page may connect to.
    connectOrigins: dsn && !tunnelPath ? [dsnOrigin(dsn)] : [],
    reportUrl: dsn ? securityReportUrl({ dsn, tunnelPath, environment, release }) : undefined,
  });
  registerSecurityHeaders(app, security);
  if (options.clientDir) await app.register(staticAssets, { root: options.clientDir, compression: config.compression });
  if (tunnelPath && tunnelTarget) {
    await app.register(tunnelProxy, {
      path: tunnelPath,
      target: tunnelTarget,
      linger: REFUSED_BODY_LINGER,
      trustedProxyHops: config.trustedProxyHops,
    });
  }

  // With METRICS_PORT, metrics and the probes have a port of their own (liveness there in deploy/k8s).
  const adminPort = door.serveMetrics(metrics.registry);

  const table = enabledRoutes(serverRouteTable, config.diagnostics);
  const clientConfig: ClientConfig = {
    sentry: {
      dsn,
      release,
      environment,
      tracesSampleRate: config.sentry.tracesSampleRate,
      tunnel: tunnelPath,
      ...(config.sentry.orgId ? { orgId: config.sentry.orgId } : {}),
    },
    diagnostics: config.diagnostics,
  };
  const pages = createPages({
    routes: await buildServerRoutes(table),
    // What loaders and actions read from the configuration (app/settings.ts).
    context: new Map([[routeSettings, { relatedDelayMs: config.catalogRelatedDelayMs, secureCookies: !options.dev }]]),
    viewModules: new Map(flattenRoutes(table).map((entry) => [entry.id, entry.view])),
    assets: options.assets,
    clientConfig,
    allowedOrigins: config.allowedOrigins,
    publicOrigin: config.publicOrigin,
    metrics,
    appName: APP_NAME,
    compression: config.compression,
    pageToken:
      config.sentry.pageToken && dsn
        ? createPageTokens(config.sentry.pageToken.secret, dsn, config.sentry.pageToken.ttlSeconds)
        : undefined,
  });
  await app.register(pagesRoute, { pages });
  return { app, readiness, metrics, ...(adminPort ? { adminPort } : {}) };
}
