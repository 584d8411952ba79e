// The server SDK as @sentry/react-router's README sets it up, loaded with `--import` before react-router-serve
// (its "Loading the Instrumentation via --import" start script). DSN: the bench's local capture server.
import * as Sentry from '@sentry/react-router';

Sentry.init({
  dsn: process.env.SENTRY_DSN,
  // The same share as our service in the bench; errors are on by default.
  tracesSampleRate: 0.1,
});
