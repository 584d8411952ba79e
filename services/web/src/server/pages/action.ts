// Actions: a form posted to the page's URL, by the browser itself (answered as a document) or by the client router
// (answered as page data). Only forms from this site, and only as big as a form needs to be.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkOrigin } from '../http/origin-check.ts';
import { sendDocumentResult } from './document.ts';
import { sendPageDataResult } from './page-data.ts';
import { type Pages, queryPage } from './query.ts';

/** Form posts only; anything bigger is refused with 413 before an action sees it. */
const ACTION_BODY_LIMIT = 64 * 1024;

/** Url-encoded and multipart forms are parsed (anything else is 415); the body stays a buffer for the Request. */
export function acceptForms(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data']) {
    app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: ACTION_BODY_LIMIT }, (_req, body, done) =>
      done(null, body),
    );
  }
}

/** POST: the action runs (a cross-site post is refused 403), then the page is answered as the client asked. */
export async function answerAction(pages: Pages, req: FastifyRequest, reply: FastifyReply, pageData: boolean) {
  const verdict = checkOrigin(req.headers, `${req.protocol}://${req.host}`, pages.options.allowedOrigins);
  if (!verdict.ok) {
    req.log.warn(verdict.reason);
    pages.options.metrics.pageRequests.inc({ kind: 'action', outcome: 'refused' });
    return reply.code(403).type('text/plain; charset=utf-8').send(verdict.reason);
  }
  const result = await queryPage(pages, req, reply, 'action', pageData);
  if (!result) return reply;
  return pageData ? sendPageDataResult(pages, req, reply, result) : sendDocumentResult(pages, req, reply, result);
}
