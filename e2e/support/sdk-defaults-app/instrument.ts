// The fixture app's Node SDK (`node --import`, so http is instrumented before the server loads): @sentry/node 11's
// defaults (span streaming, logs, default dataCollection and sendDefaultPii) with tracing on, its envelopes sent
// through the relay (SENTRY_TUNNEL) under the capture server's DSN, as the web's server SDK sends. (11.12 has no
// `enableLogs` option any more: `Sentry.logger` sends by default.)
import * as Sentry from '@sentry/node';

Sentry.init({
  dsn: process.env.SENTRY_DSN,
  tunnel: String(process.env.SENTRY_TUNNEL),
  release: 'sdk-defaults-app@e2e',
  environment: 'e2e',
  tracesSampleRate: 1,
});
