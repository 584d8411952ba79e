import { isRouteErrorResponse, Link, useRouteError } from 'react-router';
import { CLIENT_ERROR_TEXT, digestOf, SERVER_ERROR_TEXT } from './page-data-protocol.ts';

/** Error screens name the page themselves (data-page-title), as their route's own title needs data it lacks. */
export const NOT_FOUND_TITLE = 'Page not found';
export const ERROR_TITLE = 'Application error';

/**
 * Every route's error boundary. Route error responses (404 and other 4xx) get their view; a server failure shows
 * the fixed text and its digest (the Sentry event id); anything thrown in the browser shows the client text.
 * Nothing of the error itself (message, stack) is ever shown.
 */
export function RouteErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFoundScreen />;
  const digest = digestOf(error);
  if (digest !== undefined) return <ServerErrorScreen digest={digest} />;
  if (isRouteErrorResponse(error)) return <StatusScreen status={error.status} statusText={error.statusText} />;
  return <ClientErrorScreen />;
}

export function NotFoundScreen() {
  return (
    <section className="error-screen" aria-labelledby="error-title" data-page-title={NOT_FOUND_TITLE}>
      <h1 id="error-title">Page not found</h1>
      <p>There is nothing at this address. It may have moved, or the link may be wrong.</p>
      <p>
        <Link to="/">Go to the home page</Link>
      </p>
    </section>
  );
}

export function ServerErrorScreen({ digest }: { digest: string }) {
  return (
    <section className="error-screen" role="alert" data-page-title={ERROR_TITLE}>
      <h1>{SERVER_ERROR_TEXT}</h1>
      <p>
        Digest: <code data-testid="digest">{digest}</code>
      </p>
    </section>
  );
}

export function ClientErrorScreen() {
  return (
    <section className="error-screen" role="alert" data-page-title={ERROR_TITLE}>
      <h1>{CLIENT_ERROR_TEXT}</h1>
    </section>
  );
}

function StatusScreen({ status, statusText }: { status: number; statusText: string }) {
  return (
    <section className="error-screen" role="alert">
      <h1>
        {status} {statusText}
      </h1>
    </section>
  );
}
