// The step every page request shares, whatever it answers with: the request read into a Fetch Request, React
// Router's static handler run over it (loaders, and the action for a POST), the request labelled by route pattern,
// and the result made safe to send (failures reported and replaced by digests, deferred parts guarded).
import * as Sentry from '@sentry/node';
import {
  isRouteErrorResponse,
  matchRoutes,
  type RouteObject,
  type RouterContext,
  RouterContextProvider,
  type StaticHandler,
  type StaticHandlerContext,
} from 'react-router';
import type { ClientConfig } from '../../framework/shared/client-config.ts';
import { PAGE_DATA_ROUTES_HEADER, serverFailure } from '../../framework/shared/page-data-protocol.ts';
import { patternOf } from '../../framework/shared/route-pattern.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { Assets } from './assets.ts';
import { type DeferredPart, prepareDeferred } from './deferred-parts.ts';
import { reportServerFailure } from './failures.ts';
import type { PageReply, PageRequest } from './page-io.ts';

export interface PagesOptions {
  routes: RouteObject[];
  /** Values every loader and action finds in its `context` (copied into each request's). */
  context?: ReadonlyMap<RouterContext, unknown>;
  /** Route id → its view module (for preloads). */
  viewModules: Map<string, string>;
  assets: Assets;
  clientConfig: ClientConfig;
  allowedOrigins: readonly string[];
  /** PUBLIC_ORIGIN, for canonical URLs (http/canonical-origin.ts). */
  publicOrigin?: string | undefined;
  metrics: Metrics;
  appName: string;
  /** Compress documents and page data on the fly (see http/compression.ts). */
  compression: boolean;
  /** The relay's page token, when RELAY_PAGE_TOKEN_SECRET is set (telemetry/page-tokens.ts). */
  pageToken?: (() => string) | undefined;
}

/** What every page request is answered from: the options and the router's static handler over the routes. */
export interface Pages {
  options: PagesOptions;
  handler: StaticHandler;
  /** The root route's id: the error boundary of last resort. */
  rootId: string;
}

/** What the metrics count a page request as. */
export type PageKind = 'document' | 'page-data' | 'action';

/** The router's answer: a redirect (its cookies already on the reply), or the matched routes with their results. */
export type QueryResult =
  | { kind: PageKind; redirect: Response }
  | {
      kind: PageKind;
      context: StaticHandlerContext;
      url: URL;
      /** The routes whose data page data asked for (X-Page-Data-Routes); undefined = all matched. */
      routeIds: string[] | undefined;
      /** Aborted when the client goes away before the answer is complete. */
      signal: AbortSignal;
    };

export type LoadedPage = Extract<QueryResult, { context: StaticHandlerContext }>;

const MAX_ROUTE_IDS = 32;
/**
 * Longest page URL (path and query) answered: the page echoes it (canonical URL, og:url, its forms' actions), so it
 * is bounded before anything reads it. No link of the site comes near; Node's own limit is 16 KiB of headers.
 */
export const MAX_PAGE_URL = 2048;

/**
 * Runs the page's loaders (and its action, for a POST) for the request. `pageData`: the client router asked for
 * JSON, so errors stay at the route that threw and only the listed routes load. Undefined when the request was bad
 * and has been answered 400 here.
 */
export async function queryPage(
  pages: Pages,
  req: PageRequest,
  reply: PageReply,
  kind: PageKind,
  pageData: boolean,
): Promise<QueryResult | undefined> {
  if (req.url.length > MAX_PAGE_URL) {
    reply.code(414).type('text/plain; charset=utf-8').send(`page URLs are at most ${MAX_PAGE_URL} characters`);
    return undefined;
  }
  const routeIds = parseRouteIds(req.headers[PAGE_DATA_ROUTES_HEADER.toLowerCase()]);
  if (routeIds === 'invalid') return badRequest(reply, `${PAGE_DATA_ROUTES_HEADER} must list route ids`);
  const abort = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  // Concatenated, not resolved: a path such as //other.example/x stays a path on this host.
  const url = URL.parse(`${req.protocol}://${req.host}${req.url}`);
  if (!url) return badRequest(reply, 'invalid Host header or URL');
  const isPost = kind === 'action';
  const request = new Request(url, {
    method: req.method,
    headers: toHeaders(req.headers),
    signal: abort.signal,
    ...(isPost ? { body: new Uint8Array(req.body as Buffer) } : {}),
  });

  const result = await pages.handler.query(request, {
    requestContext: new RouterContextProvider(pages.options.context as Map<RouterContext, unknown> | undefined),
    skipLoaderErrorBubbling: pageData,
    skipRevalidation: pageData && isPost,
    ...(routeIds && pageData ? { filterMatchesToLoad: (m) => routeIds.includes(m.route.id) } : {}),
  });

  if (result instanceof Response) {
    setRoute(req, patternOf(matchRoutes(pages.handler.dataRoutes, url.pathname) ?? []));
    pages.options.metrics.pageRequests.inc({ kind, outcome: 'redirect' });
    for (const cookie of result.headers.getSetCookie()) reply.header('set-cookie', cookie);
    return { kind, redirect: result };
  }
  setRoute(req, patternOf(result.matches));
  return { kind, context: result, url, routeIds, signal: abort.signal };
}

/**
 * Makes the matched routes' results safe to send and counts the request by its status: every failure is reported
 * and replaced by a digest, deferred parts are guarded, and the leaf route's headers are copied to the reply.
 */
export function settlePage(pages: Pages, req: PageRequest, reply: PageReply, page: LoadedPage): DeferredPart[] {
  replaceFailures(req, page.context);
  const deferred = prepareDeferred(
    page.context.loaderData,
    (error, where) => reportServerFailure(req, error, 'auto.web.ssr', where),
    page.signal,
  );
  copyRouteHeaders(reply, page.context);
  pages.options.metrics.pageRequests.inc({ kind: page.kind, outcome: String(page.context.statusCode) });
  return deferred;
}

function badRequest(reply: PageReply, message: string): undefined {
  reply.code(400).type('text/plain; charset=utf-8').send(message);
  return undefined;
}

/** Every error that is not a route error response (404 etc.) is a failure: reported, logged, and replaced by a
 * 500 carrying only its digest, so no message or stack reaches HTML or JSON. */
function replaceFailures(req: PageRequest, context: StaticHandlerContext): void {
  if (!context.errors) return;
  for (const [routeId, error] of Object.entries(context.errors)) {
    if (isRouteErrorResponse(error)) continue;
    context.errors[routeId] = serverFailure(reportServerFailure(req, error, 'auto.web.ssr', routeId));
    context.statusCode = 500;
  }
}

function copyRouteHeaders(reply: PageReply, context: StaticHandlerContext): void {
  const leaf = context.matches.at(-1)?.route.id;
  if (!leaf) return;
  for (const headers of [context.loaderHeaders[leaf], context.actionHeaders[leaf]]) {
    if (!headers) continue;
    for (const [name, value] of headers) {
      if (name === 'set-cookie') continue;
      reply.header(name, value);
    }
    for (const cookie of headers.getSetCookie()) reply.header('set-cookie', cookie);
  }
}

function parseRouteIds(header: string | string[] | undefined): string[] | undefined | 'invalid' {
  if (header === undefined) return undefined;
  if (Array.isArray(header)) return 'invalid';
  const ids = header.split(',').map((id) => id.trim());
  if (ids.length > MAX_ROUTE_IDS || ids.some((id) => !/^[\w.$/-]{1,64}$/.test(id))) return 'invalid';
  return ids;
}

function toHeaders(raw: PageRequest['headers']): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/** Labels the request by route pattern: its metrics, its trace (when sampled) and its error events. */
function setRoute(req: PageRequest, pattern: string): void {
  req.routePattern = pattern;
  const name = `${req.method} ${pattern}`;
  Sentry.getIsolationScope().setTransactionName(name);
  const span = Sentry.getActiveSpan();
  if (span) Sentry.updateSpanName(Sentry.getRootSpan(span), name);
}
