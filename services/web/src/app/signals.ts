// Outcomes a loader or action throws instead of returning, handled the same on the server and in the browser.
import { data } from 'react-router';

/** Throw from a loader or action: the not-found view with status 404, on first load and on client navigation. */
export function notFound(): never {
  // statusText must be given: without it React Router reports "Internal Server Error".
  throw data(null, { status: 404, statusText: 'Not Found' });
}

// Redirects use React Router's own `redirect()` (a Response): 302/303 for documents, a redirect signal in page data.
export { redirect } from 'react-router';
