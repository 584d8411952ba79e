// One route for every page URL: a document (streamed HTML), page data (JSON, same URL + X-Page-Data) or an action
// (POST to the page's URL, either kind). React Router's static handler runs the loaders and actions.
import * as Sentry from '@sentry/node';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  createStaticHandler,
  isRouteErrorResponse,
  matchRoutes,
  type RouteObject,
  RouterContextProvider,
  type StaticHandlerContext,
} from 'react-router';
import type { ClientConfig } from '../framework/client-config.ts';
import { keysOf, withoutPromises } from '../framework/deferred-data.ts';
import {
  PAGE_DATA_HEADER,
  PAGE_DATA_ROUTES_HEADER,
  PAGE_DATA_VERSION,
  type PageData,
  serializeRouteError,
  serverFailure,
} from '../framework/page-data-protocol.ts';
import { patternOf } from '../framework/route-pattern.ts';
import type { Assets } from './assets.ts';
import { compressResponses } from './compression.ts';
import { type DeferredPart, pageDataLines, prepareDeferred } from './deferred-data.ts';
import { documentCacheControl } from './document-cache.ts';
import type { Metrics } from './metrics.ts';
import { checkOrigin } from './origin-check.ts';
import { renderDocument } from './render-document.tsx';

export interface PagesOptions {
  routes: RouteObject[];
  /** Route id → its view module (for preloads). */
  viewModules: Map<string, string>;
  assets: Assets;
  clientConfig: ClientConfig;
  allowedOrigins: readonly string[];
  metrics: Metrics;
  appName: string;
  /** Compress documents and page data on the fly (see compression.ts). */
  compression: boolean;
}

/** Form posts only; anything bigger is refused with 413 before an action sees it. */
export const ACTION_BODY_LIMIT = 64 * 1024;
const MAX_ROUTE_IDS = 32;
type Kind = 'document' | 'page-data' | 'action';

export async function pages(app: FastifyInstance, options: PagesOptions): Promise<void> {
  const handler = createStaticHandler(options.routes);
  const rootId = handler.dataRoutes[0]?.id ?? 'root';
  if (options.compression) compressResponses(app);

  // Actions take url-encoded or multipart forms (anything else is 415); the body stays a buffer for the Request.
  app.removeAllContentTypeParsers();
  for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data']) {
    app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: ACTION_BODY_LIMIT }, (_req, body, done) =>
      done(null, body),
    );
  }

  const handle = async (req: FastifyRequest, reply: FastifyReply) => {
    const isPageData = req.headers[PAGE_DATA_HEADER.toLowerCase()] === '1';
    const isPost = req.method === 'POST';
    const kind: Kind = isPost ? 'action' : isPageData ? 'page-data' : 'document';
    // Page data's body depends on the route list too: a cache must not answer one list with another's data.
    reply.header('vary', `${PAGE_DATA_HEADER}, ${PAGE_DATA_ROUTES_HEADER}`).header('cache-control', 'no-store');
    if (isPost) {
      const verdict = checkOrigin(req.headers, `${req.protocol}://${req.host}`, options.allowedOrigins);
      if (!verdict.ok) {
        req.log.warn({ origin: req.headers.origin, secFetchSite: req.headers['sec-fetch-site'] }, verdict.reason);
        options.metrics.pageRequests.inc({ kind, outcome: 'refused' });
        return reply.code(403).type('text/plain; charset=utf-8').send(verdict.reason);
      }
    }
    const routeIds = parseRouteIds(req.headers[PAGE_DATA_ROUTES_HEADER.toLowerCase()]);
    if (routeIds === 'invalid') {
      return reply.code(400).type('text/plain; charset=utf-8').send(`${PAGE_DATA_ROUTES_HEADER} must list route ids`);
    }
    const abort = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) abort.abort();
    });
    // Concatenated, not resolved: a path such as //other.example/x stays a path on this host.
    const url = URL.parse(`${req.protocol}://${req.host}${req.url}`);
    if (!url) return reply.code(400).type('text/plain; charset=utf-8').send('invalid Host header or URL');
    const request = new Request(url, {
      method: req.method,
      headers: toHeaders(req.headers),
      signal: abort.signal,
      ...(isPost ? { body: new Uint8Array(req.body as Buffer) } : {}),
    });

    const result = await handler.query(request, {
      requestContext: new RouterContextProvider(),
      skipLoaderErrorBubbling: isPageData,
      skipRevalidation: isPageData && isPost,
      ...(routeIds && isPageData ? { filterMatchesToLoad: (m) => routeIds.includes(m.route.id) } : {}),
    });

    if (result instanceof Response) {
      const pattern = patternOf(matchRoutes(handler.dataRoutes, url.pathname) ?? []);
      setRoute(req, pattern);
      options.metrics.pageRequests.inc({ kind, outcome: 'redirect' });
      return sendRedirect(reply, result, isPageData, isPost);
    }

    setRoute(req, patternOf(result.matches));
    // A client whose route table differs from ours (an old bundle after a deploy) asks for ids we do not have:
    // tell it to load the document instead of guessing.
    if (isPageData && routeIds && !routeIds.every((id) => result.matches.some((m) => m.route.id === id))) {
      options.metrics.pageRequests.inc({ kind, outcome: 'reload' });
      return sendPageData(reply, {
        kind: 'redirect',
        status: 302,
        // Never "//host/...": the browser would leave for another site.
        location: `/${url.pathname.replace(/^\/+/, '')}${url.search}`,
        replace: true,
        reloadDocument: true,
      });
    }
    replaceFailures(req, result);
    const deferred = prepareDeferred(
      result.loaderData,
      (error, where) => reportFailure(req, error, where),
      abort.signal,
    );
    copyRouteHeaders(reply, result);
    options.metrics.pageRequests.inc({ kind, outcome: String(result.statusCode) });

    if (isPageData) {
      const errors = result.errors
        ? Object.fromEntries(Object.entries(result.errors).map(([id, e]) => [id, serializeRouteError(e)]))
        : null;
      const body: PageData & { kind: 'data' } = {
        kind: 'data',
        status: result.statusCode,
        loaderData: withoutPromises(result.loaderData),
        actionData: result.actionData,
        errors,
        ...(deferred.length > 0 ? { deferred: keysOf(deferred) } : {}),
      };
      return deferred.length > 0 ? sendPageDataLines(reply, body, deferred) : sendPageData(reply, body);
    }
    return sendDocument(req, reply, result, handler.dataRoutes, rootId, deferred, abort.signal);
  };

  const sendDocument = async (
    req: FastifyRequest,
    reply: FastifyReply,
    context: StaticHandlerContext,
    dataRoutes: RouteObject[],
    rootId: string,
    deferred: DeferredPart[],
    signal: AbortSignal,
  ) => {
    const parts = {
      dataRoutes,
      deferred,
      nonce: reply.cspNonce.script,
      styleNonce: reply.cspNonce.style,
      assets: options.assets,
      clientConfig: options.clientConfig,
      traceMeta: Sentry.getTraceMetaTags(),
      appName: options.appName,
      origin: `${req.protocol}://${req.host}`,
    };
    const started = performance.now();
    const viewsOf = (ctx: StaticHandlerContext) =>
      ctx.matches.map((m) => options.viewModules.get(m.route.id)).filter((v): v is string => v !== undefined);
    const onLateError = (error: unknown) => req.log.error({ err: error }, 'render failed after the shell was sent');
    let rendered: Awaited<ReturnType<typeof renderDocument>>;
    try {
      rendered = await renderDocument({ ...parts, context, viewModules: viewsOf(context) }, onLateError, signal);
    } catch (error) {
      // React runs no error boundary on the server: render again with the error at the deepest boundary reached.
      const digest = reportFailure(req, error, 'render');
      const boundary = context._deepestRenderedBoundaryId ?? rootId;
      const failed: StaticHandlerContext = {
        ...context,
        statusCode: 500,
        errors: { [boundary]: serverFailure(digest) },
      };
      rendered = await renderDocument({ ...parts, context: failed, viewModules: viewsOf(failed) }, onLateError, signal);
    }
    options.metrics.ssrRender.observe(performance.now() / 1000 - started / 1000);
    reply.header(
      'cache-control',
      documentCacheControl(context.matches, req.headers.cookie, reply.hasHeader('set-cookie')),
    );
    return reply.code(rendered.status).type('text/html; charset=utf-8').send(rendered.body);
  };

  app.route({ method: ['GET', 'HEAD', 'POST'], url: '/*', handler: handle });
}

/** Every error that is not a route error response (404 etc.) is a failure: reported, logged, and replaced by a
 * 500 carrying only its digest, so no message or stack reaches HTML or JSON. */
function replaceFailures(req: FastifyRequest, context: StaticHandlerContext): void {
  if (!context.errors) return;
  for (const [routeId, error] of Object.entries(context.errors)) {
    if (isRouteErrorResponse(error)) continue;
    context.errors[routeId] = serverFailure(reportFailure(req, error, routeId));
    context.statusCode = 500;
  }
}

/** The digest shown to the user is the Sentry event id; the same id is in the log line. */
function reportFailure(req: FastifyRequest, error: unknown, where: string): string {
  const digest = Sentry.captureException(error, { mechanism: { type: 'auto.web.ssr', handled: false } } as never);
  req.log.error({ err: error, digest, where }, 'server failure');
  return digest;
}

function sendRedirect(reply: FastifyReply, response: Response, isPageData: boolean, isPost: boolean) {
  const location = response.headers.get('location') ?? '/';
  for (const cookie of response.headers.getSetCookie()) reply.header('set-cookie', cookie);
  if (isPageData) {
    return sendPageData(reply, {
      kind: 'redirect',
      status: response.status,
      location,
      replace: response.headers.has('x-remix-replace'),
      reloadDocument: response.headers.has('x-remix-reload-document'),
    });
  }
  // After a form POST the browser must GET the target: 303, whatever the action chose.
  return reply
    .code(isPost ? 303 : response.status)
    .header('location', location)
    .send();
}

function sendPageData(reply: FastifyReply, body: PageData) {
  return reply
    .code(body.kind === 'data' ? body.status : 200)
    .header(PAGE_DATA_HEADER, PAGE_DATA_VERSION)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(body));
}

/** Page data with deferred parts, streamed as JSON lines (the first is the page data). */
function sendPageDataLines(reply: FastifyReply, first: PageData & { kind: 'data' }, deferred: DeferredPart[]) {
  return reply
    .code(first.status)
    .header(PAGE_DATA_HEADER, PAGE_DATA_VERSION)
    .type('application/x-ndjson; charset=utf-8')
    .send(pageDataLines(first, deferred));
}

function copyRouteHeaders(reply: FastifyReply, context: StaticHandlerContext): void {
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
  if (ids.length > MAX_ROUTE_IDS || ids.some((id) => !/^[\w-]{1,64}$/.test(id))) return 'invalid';
  return ids;
}

function toHeaders(raw: FastifyRequest['headers']): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/** Labels the request by route pattern: its metrics, its trace (when sampled) and its error events. */
function setRoute(req: FastifyRequest, pattern: string): void {
  req.routePattern = pattern;
  const name = `${req.method} ${pattern}`;
  Sentry.getIsolationScope().setTransactionName(name);
  const span = Sentry.getActiveSpan();
  if (span) Sentry.updateSpanName(Sentry.getRootSpan(span), name);
}
