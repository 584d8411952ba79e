// The page-data protocol: a GET (or an action's POST) of the page's own URL with these headers is answered with
// JSON instead of HTML. Shared by the server (which answers) and the client's data strategy (which asks).
import { UNSAFE_ErrorResponseImpl as ErrorResponseImpl, isRouteErrorResponse } from 'react-router';

export const PAGE_DATA_HEADER = 'X-Page-Data';
/** Comma-separated ids of the routes whose loaders the client needs. */
export const PAGE_DATA_ROUTES_HEADER = 'X-Page-Data-Routes';
/** Whether a request asks for page data (the client router's JSON) rather than a document. */
export const asksForPageData = (headers: Record<string, unknown>) => headers[PAGE_DATA_HEADER.toLowerCase()] === '1';
/** Set on every page-data answer: lets the client tell our JSON from a proxy's or an error page's. */
export const PAGE_DATA_VERSION = '1';

export const SERVER_ERROR_TEXT =
  'Application error: a server-side exception has occurred (see the server logs for more information)';
export const CLIENT_ERROR_TEXT =
  'Application error: a client-side exception has occurred (see the browser console for more information)';

/** What a route error looks like on the wire (and in the hydration data). Never an Error's message or stack. */
export interface SerializedRouteError {
  status: number;
  statusText: string;
  data: unknown;
}

export type PageData =
  | {
      kind: 'data';
      status: number;
      loaderData: Record<string, unknown>;
      actionData: Record<string, unknown> | null;
      errors: Record<string, SerializedRouteError> | null;
      /** Loader data keys that are still pending (null above): each arrives as a later line (deferred-data.ts). */
      deferred?: Record<string, string[]>;
    }
  | { kind: 'redirect'; status: number; location: string; replace: boolean; reloadDocument: boolean };

/** The body of the 500 error response the server puts in place of a failure: only the digest. */
export interface ServerFailureData {
  digest: string;
}

export function serverFailure(digest: string): ErrorResponseImpl {
  return new ErrorResponseImpl(500, 'Internal Server Error', { digest } satisfies ServerFailureData);
}

export function digestOf(error: unknown): string | undefined {
  if (!isRouteErrorResponse(error) || error.status < 500) return undefined;
  const data = error.data as Partial<ServerFailureData> | null;
  return typeof data?.digest === 'string' ? data.digest : undefined;
}

export function serializeRouteError(error: unknown): SerializedRouteError {
  if (isRouteErrorResponse(error)) return { status: error.status, statusText: error.statusText, data: error.data };
  // The server replaces every other error with serverFailure() before serializing; this is the safety net.
  return { status: 500, statusText: 'Internal Server Error', data: null };
}

export function reviveRouteError(error: SerializedRouteError): ErrorResponseImpl {
  return new ErrorResponseImpl(error.status, error.statusText, error.data);
}
