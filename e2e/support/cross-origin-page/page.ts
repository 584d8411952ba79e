// A page on another origin than the relay: the real @sentry/browser with `tunnel` set to the relay's URL, as a
// second team's app would use it. The test writes its DSN, tunnel and message into window.__relayTest first.
import * as Sentry from '@sentry/browser';

const { dsn, tunnel, message } = (
  window as unknown as { __relayTest: { dsn: string; tunnel: string; message: string } }
).__relayTest;
// Only the error: no sessions or client reports to tell apart from it.
Sentry.init({ dsn, tunnel, defaultIntegrations: false, sendClientReports: false });
Sentry.captureException(new Error(message));
(window as unknown as { __flushed: Promise<boolean> }).__flushed = Sentry.flush(5000);
