// Page data: the client router's JSON for a navigation or a form it submitted (same URL + X-Page-Data: 1). One
// JSON document, or JSON lines when loaders deferred parts (the page data first, then each part as it settles).

import { PAGE_TOKEN_HEADER } from '../../framework/shared/client-config.ts';
import { keysOf, withoutPromises } from '../../framework/shared/deferred-data.ts';
import {
  PAGE_DATA_HEADER,
  PAGE_DATA_VERSION,
  type PageData,
  serializeRouteError,
} from '../../framework/shared/page-data-protocol.ts';
import { type DeferredPart, pageDataLines } from './deferred-parts.ts';
import type { PageReply, PageRequest } from './page-io.ts';
import { type Pages, type QueryResult, queryPage, settlePage } from './query.ts';

/** GET (or HEAD) with X-Page-Data: the listed routes' data, errors kept at the route that threw. */
export async function answerPageData(pages: Pages, req: PageRequest, reply: PageReply) {
  const result = await queryPage(pages, req, reply, 'page-data', true);
  return result ? sendPageDataResult(pages, req, reply, result) : reply;
}

/** Answers a query's result as page data: a redirect signal, a reload signal, or the routes' data and errors. */
export function sendPageDataResult(pages: Pages, req: PageRequest, reply: PageReply, result: QueryResult) {
  // A page open past its token's expiry renews it with every navigation (client/telemetry/page-token.ts reads it).
  const { pageToken } = pages.options;
  if (pageToken) reply.header(PAGE_TOKEN_HEADER, pageToken());
  if ('redirect' in result) {
    const { headers, status } = result.redirect;
    return sendPageData(reply, {
      kind: 'redirect',
      status,
      location: headers.get('location') ?? '/',
      replace: headers.has('x-remix-replace'),
      reloadDocument: headers.has('x-remix-reload-document'),
    });
  }
  const { context, url, routeIds } = result;
  // A client whose route table differs from ours (an old bundle after a deploy) asks for ids we do not have:
  // tell it to load the document instead of guessing.
  if (routeIds && !routeIds.every((id) => context.matches.some((m) => m.route.id === id))) {
    pages.options.metrics.pageRequests.inc({ kind: result.kind, outcome: 'reload' });
    return sendPageData(reply, {
      kind: 'redirect',
      status: 302,
      // Never "//host/...": the browser would leave for another site.
      location: `/${url.pathname.replace(/^\/+/, '')}${url.search}`,
      replace: true,
      reloadDocument: true,
    });
  }
  const deferred = settlePage(pages, req, reply, result);
  const errors = context.errors
    ? Object.fromEntries(Object.entries(context.errors).map(([id, e]) => [id, serializeRouteError(e)]))
    : null;
  const body: PageData & { kind: 'data' } = {
    kind: 'data',
    status: context.statusCode,
    loaderData: withoutPromises(context.loaderData),
    actionData: context.actionData,
    errors,
    ...(deferred.length > 0 ? { deferred: keysOf(deferred) } : {}),
  };
  return deferred.length > 0 ? sendPageDataLines(reply, body, deferred) : sendPageData(reply, body);
}

function sendPageData(reply: PageReply, body: PageData) {
  return reply
    .code(body.kind === 'data' ? body.status : 200)
    .header(PAGE_DATA_HEADER, PAGE_DATA_VERSION)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(body));
}

/** Page data with deferred parts, streamed as JSON lines (the first is the page data). */
function sendPageDataLines(reply: PageReply, first: PageData & { kind: 'data' }, deferred: DeferredPart[]) {
  return reply
    .code(first.status)
    .header(PAGE_DATA_HEADER, PAGE_DATA_VERSION)
    .type('application/x-ndjson; charset=utf-8')
    .send(pageDataLines(first, deferred));
}
