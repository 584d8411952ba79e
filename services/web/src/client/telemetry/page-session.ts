// Release health in the specification's three states, ok, exited and crashed (§4), from Sentry's page sessions:
// - an unhandled error marks the session crashed. SDK 11's browser client says `unhandled` instead (a browser page
//   outlives an error); the specification has no such state, and a page that failed is what "crashed" counts;
// - a page the user leaves ends its session as exited (the SDK leaves page sessions at ok forever), and one restored
//   from the back/forward cache starts a new one.
import { type BrowserClient, captureSession, endSession, startSession } from '@sentry/react';

export function trackPageSession(client: BrowserClient): void {
  client.on('beforeSendSession', (session) => {
    if ('status' in session && session.status === 'unhandled') session.status = 'crashed';
  });
  addEventListener('pagehide', () => endSession());
  addEventListener('pageshow', (event) => {
    if (!event.persisted) return;
    startSession({ ignoreDuration: true });
    captureSession();
  });
}
