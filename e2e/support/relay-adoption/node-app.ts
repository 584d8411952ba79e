// Another team's server with the real @sentry/node 11: its envelopes go to the relay by `tunnel` (the relay's URL and
// the path for its DSN), since the relay answers only its tunnel paths, not Sentry's /api/<project>/envelope/.
// Reports one error, flushes and exits 0 when the SDK had it sent.
import * as Sentry from '@sentry/node';

Sentry.init({
  dsn: process.env.SENTRY_DSN,
  tunnel: String(process.env.SENTRY_TUNNEL),
  release: 'other-server@e2e',
  environment: 'e2e',
  tracesSampleRate: 0,
});
Sentry.captureException(new Error(String(process.env.MESSAGE)));
process.exitCode = (await Sentry.flush(10_000)) ? 0 : 1;
