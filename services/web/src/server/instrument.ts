// Loaded with `node --import` before anything else, so @sentry/node instruments http and Fastify as they load.
// Reads the same variables as config.ts (validated there; a bad value stops the process right after this).
import { ignoreErrors } from '@app/telemetry-rules';

// Sentry's documented `__SENTRY_DEBUG__` flag, which the browser build sets with `define`. On the server the SDK is
// not bundled, so it reads the global when its modules evaluate: set it first, then load the SDK (a static import
// would be evaluated before this line). Without it every span formats a debug message nobody reads (≈ 1 % of CPU).
declare global {
  var __SENTRY_DEBUG__: boolean | undefined;
}
globalThis.__SENTRY_DEBUG__ = false;
const Sentry = await import('@sentry/node');

const rate = Number(process.env.SENTRY_TRACES_SAMPLE_RATE ?? '0.1');
const tunnelPath = process.env.TUNNEL_PATH?.trim() || '/monitoring';

Sentry.init({
  dsn: process.env.SENTRY_DSN?.trim() || undefined,
  release: process.env.SENTRY_RELEASE?.trim() || undefined,
  environment: process.env.SENTRY_ENVIRONMENT?.trim() || 'production',
  tracesSampleRate: Number.isFinite(rate) && rate >= 0 && rate <= 1 ? rate : 0.1,
  ignoreErrors,
  integrations: [
    Sentry.httpIntegration({
      // Release health comes from the browser's page sessions; per-request server sessions would cost every request.
      sessions: false,
      // Form posts may hold personal data; never attach request bodies to events.
      maxRequestBodySize: 'none',
      // Probes, metrics, static files and the telemetry tunnel itself are not worth a trace.
      ignoreIncomingRequests: (path) =>
        path === '/healthz' ||
        path === '/readyz' ||
        path === '/metrics' ||
        path.startsWith('/assets/') ||
        path.startsWith(tunnelPath),
    }),
    // Page failures are captured by the page handler (it needs the event id as the digest); Fastify's own error
    // handler catches the rest, captured here when they are 5xx.
    Sentry.fastifyIntegration({ shouldHandleError: (_error, _req, reply) => reply.statusCode >= 500 }),
  ],
});
