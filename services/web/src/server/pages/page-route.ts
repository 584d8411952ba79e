// One route for every page URL, answered by request kind: a document (streamed HTML, document.ts), page data
// (JSON, same URL + X-Page-Data, page-data.ts) or an action (POST to the page's URL, either kind,
// action.ts); all over React Router's static handler (query.ts).
import type { FastifyInstance } from 'fastify';
import { createStaticHandler } from 'react-router';
import {
  asksForPageData,
  PAGE_DATA_HEADER,
  PAGE_DATA_ROUTES_HEADER,
} from '../../framework/shared/page-data-protocol.ts';
import { compressResponses } from '../http/compression.ts';
import { acceptForms, answerAction } from './action.ts';
import { answerDocument } from './document.ts';
import { answerPageData } from './page-data.ts';
import type { PageReply } from './page-io.ts';
import type { Pages, PagesOptions } from './query.ts';

export function createPages(options: PagesOptions): Pages {
  const handler = createStaticHandler(options.routes);
  return { options, handler, rootId: handler.dataRoutes[0]?.id ?? 'root' };
}

/** The headers of every page answer. Page data's body depends on the route list too: a cache must not answer one
 * list with another's data. */
export function pageHeaders(reply: PageReply): void {
  reply.header('vary', `${PAGE_DATA_HEADER}, ${PAGE_DATA_ROUTES_HEADER}`).header('cache-control', 'no-store');
}

export async function pagesRoute(app: FastifyInstance, { pages }: { pages: Pages }): Promise<void> {
  if (pages.options.compression) compressResponses(app);
  acceptForms(app);

  app.route({
    method: ['GET', 'HEAD', 'POST'],
    url: '/*',
    handler: (req, reply) => {
      pageHeaders(reply);
      const pageData = asksForPageData(req.headers);
      if (req.method === 'POST') return answerAction(pages, req, reply, pageData);
      return pageData ? answerPageData(pages, req, reply) : answerDocument(pages, req, reply);
    },
  });
}
