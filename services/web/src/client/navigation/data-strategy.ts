// React Router's dataStrategy: one page-data request per navigation (all loaders that must run, in one GET of the
// target URL), or the action's POST to the current URL; a fresh prefetch is used without a request.
import {
  type DataStrategyFunction,
  type DataStrategyResult,
  redirect,
  redirectDocument,
  replace,
  data as routerData,
} from 'react-router';
import { type PageData, reviveRouteError } from '../../framework/shared/page-data-protocol.ts';
import { hardNavigate } from './hard-navigate.ts';
import { fetchPageData, PageDataUnavailable } from './page-data-client.ts';

export interface PrefetchSource {
  /** A fresh prefetched answer covering these routes, if any. */
  takeFresh(url: string, routeIds: readonly string[]): Promise<PageData> | undefined;
  /** Actions change data: everything prefetched before is dropped. */
  clear(): void;
}

/**
 * `beforeRequest` runs before each page-data or action request (not when a prefetch answers): start.tsx lets a
 * request wait there for the Sentry SDK while it loads, so the request carries the navigation's trace.
 */
export function createDataStrategy(
  prefetched: PrefetchSource,
  beforeRequest: () => Promise<unknown> = () => Promise.resolve(),
): DataStrategyFunction {
  return async ({ request, matches }) => {
    const isAction = request.method !== 'GET';
    // A route without a loader (an index page, say) is matched and "called" too, but has no data to ask for.
    const toRun = matches.filter((m) => m.shouldCallHandler() && (isAction || m.route.loader));
    if (toRun.length === 0) return {};
    const ids = toRun.map((m) => m.route.id);
    let pending: Promise<PageData>;
    if (isAction) {
      prefetched.clear();
      const body = await request.arrayBuffer();
      await beforeRequest();
      pending = fetchPageData(request.url, ids, {
        method: request.method,
        body,
        contentType: request.headers.get('Content-Type'),
        signal: request.signal,
      });
    } else {
      const fetchOwn = () => beforeRequest().then(() => fetchPageData(request.url, ids, { signal: request.signal }));
      // A prefetch that failed is no reason to fail the navigation: ask again.
      pending = prefetched.takeFresh(request.url, ids)?.catch(fetchOwn) ?? fetchOwn();
    }
    pending = pending.catch((error: unknown) => {
      if (error instanceof PageDataUnavailable) return hardNavigate(request.url, error.message);
      throw error;
    });

    const results: Record<string, DataStrategyResult> = {};
    await Promise.all(
      toRun.map(async (match) => {
        // resolve() also loads the route's lazy code, in parallel with the data.
        results[match.route.id] = await match.resolve(async () => {
          const data = await pending;
          if (data.kind === 'redirect') {
            if (data.reloadDocument) throw redirectDocument(data.location);
            throw data.replace ? replace(data.location) : redirect(data.location, data.status);
          }
          const error = data.errors?.[match.route.id];
          if (error) throw reviveRouteError(error);
          if (!isAction) return data.loaderData[match.route.id] ?? null;
          // The status tells the router not to revalidate after a rejected submission (4xx).
          return routerData(data.actionData?.[match.route.id] ?? null, { status: data.status });
        });
      }),
    );
    return results;
  };
}
