// The root error boundary of @sentry/react-router's README (peer-sentry-rr.ts re-exports it from the peer's root.jsx).
import * as Sentry from '@sentry/react-router';
import { isRouteErrorResponse } from 'react-router';

export function ErrorBoundary({ error }) {
  let message = 'Oops!';
  let details = 'An unexpected error occurred.';
  if (isRouteErrorResponse(error)) {
    message = error.status === 404 ? '404' : 'Error';
    details = error.status === 404 ? 'The requested page could not be found.' : error.statusText || details;
  } else if (error instanceof Error) {
    // only errors that are not 404s reach Sentry
    Sentry.captureException(error);
  }
  return (
    <main>
      <h1>{message}</h1>
      <p>{details}</p>
    </main>
  );
}
