// Documents: the page as streamed HTML for a browser's navigation or its plain form post, rendered again at the
// deepest error boundary reached when rendering itself fails.
import * as Sentry from '@sentry/node';
import type { StaticHandlerContext } from 'react-router';
import { serverFailure } from '../../framework/shared/page-data-protocol.ts';
import { canonicalOrigin } from '../http/canonical-origin.ts';
import { documentCacheControl } from './document-cache.ts';
import { reportServerFailure } from './failures.ts';
import type { PageReply, PageRequest } from './page-io.ts';
import { type Pages, type QueryResult, queryPage, settlePage } from './query.ts';
import { renderDocument } from './render-document.tsx';

/** GET (or HEAD) without X-Page-Data: the whole page, errors shown at the nearest boundary. */
export async function answerDocument(pages: Pages, req: PageRequest, reply: PageReply) {
  const result = await queryPage(pages, req, reply, 'document', false);
  return result ? sendDocumentResult(pages, req, reply, result) : reply;
}

/** Answers a query's result as a document: a redirect, or the rendered page. */
export async function sendDocumentResult(pages: Pages, req: PageRequest, reply: PageReply, result: QueryResult) {
  if ('redirect' in result) {
    // After a form POST the browser must GET the target: 303, whatever the action chose.
    return reply
      .code(result.kind === 'action' ? 303 : result.redirect.status)
      .header('location', result.redirect.headers.get('location') ?? '/')
      .send();
  }
  const { options, handler, rootId } = pages;
  const { context, signal } = result;
  const deferred = settlePage(pages, req, reply, result);
  const parts = {
    dataRoutes: handler.dataRoutes,
    deferred,
    nonce: reply.cspNonce.script,
    styleNonce: reply.cspNonce.style,
    pageToken: options.pageToken?.(),
    assets: options.assets,
    clientConfig: options.clientConfig,
    traceMeta: Sentry.getTraceMetaTags(),
    appName: options.appName,
    origin: canonicalOrigin(`${req.protocol}://${req.host}`, {
      publicOrigin: options.publicOrigin,
      allowedOrigins: options.allowedOrigins,
    }),
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
    const digest = reportServerFailure(req, error, 'auto.web.ssr', 'render');
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
}
