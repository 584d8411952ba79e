// Loaded with `node --import` before anything else, so @sentry/node instruments http and Fastify as they load.
// Reads the same variables as config.ts (validated there; a bad value stops the process right after this).
import { ignoreErrors } from '@app/telemetry-rules';
import { serverTunnelUrl } from './telemetry-endpoints.ts';
import { admitForcedSample, createTokenBucket, isForcedSample } from './trace-budget.ts';

// Sentry's documented `__SENTRY_DEBUG__` flag, which the browser build sets with `define`. On the server the SDK is
// not bundled, so it reads the global when its modules evaluate: set it first, then load the SDK (a static import
// would be evaluated before this line). Without it every span formats a debug message nobody reads (≈ 1 % of CPU).
declare global {
  var __SENTRY_DEBUG__: boolean | undefined;
}
globalThis.__SENTRY_DEBUG__ = false;
const Sentry = await import('@sentry/node');
const { generateTraceId } = await import('@sentry/core');

const configuredRate = Number(process.env.SENTRY_TRACES_SAMPLE_RATE ?? '0.1');
const rate = Number.isFinite(configuredRate) && configuredRate >= 0 && configuredRate <= 1 ? configuredRate : 0.1;
const tunnelPath = process.env.TUNNEL_PATH?.trim() || '/monitoring';
const orgId = process.env.SENTRY_ORG_ID?.trim() || undefined;
const perSecond = Number(process.env.TRACE_CONTINUATION_PER_SECOND ?? '10');
const continuations = createTokenBucket(Number.isSafeInteger(perSecond) && perSecond >= 0 ? perSecond : 10);
const untraced = (path: string) =>
  path === '/healthz' ||
  path === '/readyz' ||
  path === '/metrics' ||
  path.startsWith('/assets/') ||
  path.startsWith(tunnelPath);

/**
 * Head sampling before the request's span exists. The SDK builds the http.server span (URL parsing, every header
 * copied into attributes, scope bindings) and only then samples it: at a 0.1 rate, 90 % of requests paid for a span
 * nobody receives — about a third of a page-data request's CPU. This makes the SDK's own decision first, from the
 * same inputs (the incoming trace's decision, else sampleRand < rate), and skips the span when it says no; the
 * trace id, its propagation to the browser (sentry-trace …-0, so the pageload is not sampled either) and error
 * events are unchanged. What is lost: the `sample_rate` client outcomes for server transactions.
 * A sampled decision the client made is honoured within the continuation budget only (trace-budget.ts); beyond it
 * the request gets a trace of its own, decided here, and a dropped one counts as a `sample_rate` client outcome.
 */
function skipUnsampled(path: string): boolean {
  if (untraced(path)) return true;
  const scope = Sentry.getCurrentScope();
  const context = scope.getPropagationContext();
  if (isForcedSample(context, rate)) {
    if (admitForcedSample(continuations)) return false;
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

const serverTunnel = serverTunnelUrl(process.env);

Sentry.init({
  dsn: process.env.SENTRY_DSN?.trim() || undefined,
  release: process.env.SENTRY_RELEASE?.trim() || undefined,
  environment: process.env.SENTRY_ENVIRONMENT?.trim() || 'production',
  tracesSampleRate: rate,
  // Through the relay when there is one (compose, `npm start`, SERVER_TUNNEL_URL in Kubernetes): one egress, one
  // allowlist, the spool, and the local viewer sees server errors and spans too.
  ...(serverTunnel ? { tunnel: serverTunnel } : {}),
  // Only traces of this organization are continued (its id from SENTRY_ORG_ID, else the DSN's host, o<id>.…); one
  // without an org id in its baggage starts a new trace when this service knows its own.
  strictTraceContinuation: true,
  ...(orgId ? { orgId: orgId as `${number}` } : {}),
  ignoreErrors,
  // Fastify's integration is left out (it is a default one): it wraps every hook and the handler of every request
  // in a span of its own, sampled or not (≈ 15 % of a page-data request's CPU), and names the transaction after the
  // catch-all route. The page handler names the span after the matched route pattern instead and reports its own
  // failures; the error handler in app.ts reports the rest.
  integrations: (defaults) => [
    ...defaults.filter((integration) => integration.name !== 'Fastify' && integration.name !== 'Http'),
    Sentry.httpIntegration({
      // Release health comes from the browser's page sessions; per-request server sessions would cost every request.
      sessions: false,
      // Form posts may hold personal data; never attach request bodies to events.
      maxRequestBodySize: 'none',
      // Probes, metrics, static files and the telemetry tunnel itself are not worth a trace; nor is an unsampled
      // request worth a span.
      ignoreIncomingRequests: skipUnsampled,
    }),
  ],
});
