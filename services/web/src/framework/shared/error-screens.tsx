// The screens shown in place of a page that failed or does not exist, on the server and in the browser.
import { createContext, type ReactNode, useContext, useLayoutEffect } from 'react';
import { isRouteErrorResponse, Link, useRouteError } from 'react-router';
import { CLIENT_ERROR_TEXT, digestOf, SERVER_ERROR_TEXT } from './page-data-protocol.ts';

/** Error screens name the page themselves (data-page-title), as their route's own title needs data it lacks. */
const NOT_FOUND_TITLE = 'Page not found';
const ERROR_TITLE = 'Application error';

const UNAVAILABLE_TITLE = 'Service unavailable';

/** The document title of the screen RouteErrorBoundary shows for `error` (the server writes it into <title>). */
export function errorScreenTitle(error: unknown): string {
  if (!isRouteErrorResponse(error) || error.status >= 500) {
    return isRouteErrorResponse(error) && error.status === 503 ? UNAVAILABLE_TITLE : ERROR_TITLE;
  }
  return error.status === 404 ? NOT_FOUND_TITLE : `${error.status} ${error.statusText}`;
}

/**
 * Every route's error boundary. Route error responses (404 and other 4xx) get their view; a server failure shows
 * the fixed text and its digest (the Sentry event id) when it has one, a 503 asks to try again later; anything
 * thrown in the browser shows the client text. Nothing of the error itself (message, stack) is ever shown.
 */
export function RouteErrorBoundary() {
  const error = useRouteError();
  if (!isRouteErrorResponse(error)) return <ClientErrorScreen error={error} />;
  if (error.status === 404) return <NotFoundScreen />;
  if (error.status === 503) return <UnavailableScreen />;
  if (error.status >= 500) return <ServerErrorScreen digest={digestOf(error)} />;
  return <StatusScreen status={error.status} statusText={error.statusText} />;
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

/** A failure's screen: announced, and naming the page (its route's own title needs data it lacks). */
function AlertScreen({ title, heading, children }: { title: string; heading: string; children?: ReactNode }) {
  return (
    <section className="error-screen" role="alert" data-page-title={title}>
      <h1>{heading}</h1>
      {children}
    </section>
  );
}

/** A server failure; its digest when the server reported it (a loader's own 500 has none). */
export function ServerErrorScreen({ digest }: { digest: string | undefined }) {
  return (
    <AlertScreen title={ERROR_TITLE} heading={SERVER_ERROR_TEXT}>
      {digest === undefined ? null : (
        <p>
          Digest: <code data-testid="digest">{digest}</code>
        </p>
      )}
    </AlertScreen>
  );
}

/** A deliberate 503: the page exists but cannot be served now (maintenance, an overloaded dependency). */
export function UnavailableScreen() {
  return (
    <AlertScreen title={UNAVAILABLE_TITLE} heading={UNAVAILABLE_TITLE}>
      <p>This page cannot be shown right now. Please try again in a few minutes.</p>
      <p>
        <Link to="/">Go to the home page</Link>
      </p>
    </AlertScreen>
  );
}

/**
 * Told of the failure behind each client error screen as it is shown: that screen means the page failed, which the
 * browser reports as a crash (decision 014). The browser entry provides it; the server renders without it.
 */
export const ErrorScreenShown = createContext<((error: unknown) => void) | undefined>(undefined);

export function ClientErrorScreen({ error }: { error?: unknown }) {
  const shown = useContext(ErrorScreenShown);
  // A layout effect: it runs in the same commit as React's onCaughtError for the same error (client/telemetry/telemetry.ts).
  useLayoutEffect(() => shown?.(error), [shown, error]);
  return <AlertScreen title={ERROR_TITLE} heading={CLIENT_ERROR_TEXT} />;
}

function StatusScreen({ status, statusText }: { status: number; statusText: string }) {
  return <AlertScreen title={`${status} ${statusText}`} heading={`${status} ${statusText}`} />;
}
