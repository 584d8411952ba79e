// How the relay's Fastify routes answer a failure of the relay itself: logged and counted as the tunnel's 500 is,
// because the relay turns Fastify's own request and error lines off (app.ts: they quote the URL and headers).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { RelayMetrics } from '../ops/metrics.ts';

/** The body of a 5xx from a Fastify route: the tunnel's, saying nothing of the error itself. */
export const INTERNAL_ERROR_BODY = '{"error":"internal","detail":"the relay failed to handle this request"}';

/**
 * Fastify's error handler for every route but the tunnel: a 5xx is logged at error level with the request's id and
 * the error, and counted in `relay_envelopes_rejected_total{reason="internal"}`. A 4xx here is Fastify's own (a body
 * parser's on an unrouted path; the routes' refusals never get here, refuse() logs them): answered as Fastify would,
 * unlogged like the 404 it goes with.
 */
export function answerServerErrors(metrics: RelayMetrics) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 ? error.statusCode : 500;
    if (status < 500) return reply.code(status).send(error);
    metrics.rejected.inc({ reason: 'internal' });
    request.log.error({ err: error, route: request.routeOptions.url }, 'request failed');
    // No Retry-After on a 5xx, as on the tunnel: the SDK would stop sending everything for that long.
    return reply.code(status).type('application/json').send(INTERNAL_ERROR_BODY);
  };
}
