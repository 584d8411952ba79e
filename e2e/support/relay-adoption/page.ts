// Another team's page with the real @sentry/browser 11 and nothing of ours: the test writes its DSN and `tunnel` option
// into the page (a path on the page's own origin, or `true`: the path SDK 11 derives from the DSN), then makes it
// report an error. Bundled at test time by sdk-defaults-app/bundle.ts.
import * as Sentry from '@sentry/browser';

declare global {
  interface Window {
    __adoption: { dsn: string; tunnel: string | true; message: string };
    __report: () => Promise<boolean>;
  }
}

const { dsn, tunnel, message } = window.__adoption;
Sentry.init({ dsn, tunnel, release: 'other-app@e2e', environment: 'e2e', integrations: [] });

window.__report = async () => {
  Sentry.captureException(new Error(message));
  return Sentry.flush(5_000);
};
