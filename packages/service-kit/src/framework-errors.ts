// Fastify's router refusals (a path that does not decode, a too long parameter), answered with the request's path
// cut to a bound: Fastify's own answer quotes the whole path, up to Node's 16 KiB header limit (decision 010).
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Readiness } from './health.ts';
import { type LingerEnd, type LingerLimits, lingerWhileUnread } from './linger.ts';
import { quoteBounded } from './quote.ts';

/** How a refusal sent before its request's body arrived ends: a lingering close within these limits, counted. */
export interface RefusedBodyLinger {
  limits: LingerLimits;
  ended?: (how: LingerEnd) => void;
}

/** Most characters of the path a router refusal quotes, as the relay's 404 does. */
export const MAX_QUOTED_PATH = 64;

const REASONS: Record<string, string> = {
  FST_ERR_BAD_URL: 'is not a valid URL: a % in it is not followed by two hex digits, or its %-escapes are not UTF-8',
  FST_ERR_MAX_PARAM_LENGTH: 'has a segment longer than this service routes',
};

/**
 * Fastify's `frameworkErrors`: the router's refusal keeps its status and Fastify's body shape, with the path quoted
 * to MAX_QUOTED_PATH characters. Such a request skips every hook, so what the hooks would add is added here: the
 * request id, `Connection: close` while draining, and a lingering close when a body is still arriving.
 */
export function answerFrameworkErrors(readiness: Readiness, linger?: RefusedBodyLinger) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const reason = REASONS[error.code];
    const message = reason
      ? `the path ${quoteBounded(request.raw.url ?? '', MAX_QUOTED_PATH)} ${reason}`
      : error.message;
    const status = error.statusCode ?? 500;
    request.log.info({ code: error.code, status, message }, 'request refused by the router');
    reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
    const lingering = linger !== undefined && lingerWhileUnread(request.raw, linger.limits, linger.ended);
    if (lingering) request.raw.resume();
    if (lingering || readiness.draining) reply.header('connection', 'close');
    reply
      .code(status)
      .type('application/json; charset=utf-8')
      .send(JSON.stringify({ statusCode: status, code: error.code, error: STATUS_CODES[status], message }));
  };
}
