// Preload entry (dist/server/instrument.js), loaded by `node --import` first so @sentry/node instruments http as it
// loads; settings from telemetry/sentry-config.ts, config.ts's parser (when one is wrong the SDK stays off, config.ts
// stops the process). Why the server samples before the span exists: decision 004.
import { ignoreErrors } from '@app/telemetry-rules';
import { isProbeOrAsset } from './ops/service-paths.ts';
import { createPageTokens } from './telemetry/page-tokens.ts';
import { loadSentryConfig, type SentryConfig } from './telemetry/sentry-config.ts';
import { withMemoryReadPerInterval } from './telemetry/sentry-context.ts';
import { type BudgetedRequest, createTraceBudget, isForcedSample } from './telemetry/trace-budget.ts';

// Sentry's `__SENTRY_DEBUG__` flag (the browser build sets it with `define`): the server does not bundle the SDK, so
// set the global before the SDK's modules evaluate, then load them. Debug messages nobody reads cost CPU.
declare global {
  var __SENTRY_DEBUG__: boolean | undefined;
}
globalThis.__SENTRY_DEBUG__ = false;
const Sentry = await import('@sentry/node');
const { generateTraceId } = await import('@sentry/core');

const config = loadSentryConfig(process.env);
const rate = config?.tracesSampleRate ?? 0;
const { tunnelPath } = config ?? {};
// TRUSTED_PROXY_HOPS as config.ts reads it (which stops the service, naming it, when it is wrong).
const hops = Number(process.env.TRUSTED_PROXY_HOPS ?? 0);
const admitContinuation = createTraceBudget({
  perSecond: config?.traceContinuationPerSecond ?? 0,
  trustedProxyHops: Number.isInteger(hops) && hops >= 0 && hops <= 10 ? hops : 0,
});
const untraced = (path: string) => isProbeOrAsset(path) || (tunnelPath !== undefined && path.startsWith(tunnelPath));

/**
 * The SDK's own sampling decision (the incoming trace's, else sampleRand < rate), made before it builds the request's
 * span, so an unsampled request pays for none. A client's sampled decision is honoured within trace-budget.ts's
 * budget only (the page's own requests have a share of their own); beyond it the request gets a trace of its own.
 */
function skipUnsampled(path: string, request: BudgetedRequest): boolean {
  if (untraced(path)) return true;
  const scope = Sentry.getCurrentScope();
  const context = scope.getPropagationContext();
  if (isForcedSample(context, rate)) {
    if (admitContinuation(request)) return false;
    const own = { traceId: generateTraceId(), sampleRand: Math.random() };
    if (own.sampleRand < rate) {
      scope.setPropagationContext(own);
      return false;
    }
    scope.setPropagationContext({ ...own, sampled: false });
    Sentry.getClient()?.recordDroppedEvent('sample_rate', 'transaction');
    return true;
  }
  if (context.sampled !== undefined) return !context.sampled;
  if (context.sampleRand < rate) return false;
  scope.setPropagationContext({ ...context, sampled: false });
  return true;
}

if (config) {
  Sentry.init({
    dsn: config.dsn,
    release: config.release,
    environment: config.environment,
    tracesSampleRate: rate,
    // Through the relay when there is one: one egress, one allowlist, the spool, and the local viewer sees it too.
    ...(config.serverTunnelUrl ? { tunnel: config.serverTunnelUrl } : {}),
    // A relay requiring page tokens asks this service's envelopes for one too: the getter signs a current one on
    // every send (the transport copies the headers per request).
    ...(config.serverTunnelUrl && config.pageToken
      ? { transportOptions: { headers: serverPageTokenHeaders(config) } }
      : {}),
    // Only this organization's traces are continued (SENTRY_ORG_ID, else the DSN's host o<id>.…).
    strictTraceContinuation: true,
    ...(config.orgId ? { orgId: config.orgId as `${number}` } : {}),
    ignoreErrors,
    // Fastify's integration spans every hook of every request and names the transaction after the catch-all route;
    // the page handler names the span by route pattern and reports its own failures, app.ts's error handler the rest.
    integrations: (defaults) => [
      ...defaults
        .filter((integration) => integration.name !== 'Fastify' && integration.name !== 'Http')
        .map((integration) => (integration.name === 'Context' ? withMemoryReadPerInterval(integration) : integration)),
      Sentry.httpIntegration({
        // Release health comes from the browser's page sessions.
        sessions: false,
        // Form posts may hold personal data.
        maxRequestBodySize: 'none',
        ignoreIncomingRequests: skipUnsampled,
      }),
    ],
  });
}

function serverPageTokenHeaders(sentry: SentryConfig): Record<string, string> {
  const { dsn, pageToken } = sentry;
  if (!dsn || !pageToken) return {};
  const token = createPageTokens(pageToken.secret, dsn, pageToken.ttlSeconds);
  return Object.defineProperty({}, 'x-page-token', { enumerable: true, get: token });
}
