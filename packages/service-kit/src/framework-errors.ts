// Fastify's router refusals (a path that does not decode, a too long parameter), answered with the request's path
// cut to a bound: Fastify's own answer quotes the whole path, up to Node's 16 KiB header limit (decision 010).
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Readiness } from './health.ts';
import { type LingerEnd, type LingerLimits, lingerAfterAnswer } from './linger.ts';

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

/** Client text as an answer or log line may quote it: JSON-escaped, at most `max` characters, and how many there were. */
export function quoteBounded(text: string, max: number): string {
  return text.length <= max
    ? JSON.stringify(text)
    : `${JSON.stringify(text.slice(0, max))}… (${text.length} characters)`;
}

/** True when `req` declared a body that has not all arrived (Node marks a bodyless request complete only later). */
export function hasUnreadBody(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const { 'content-length': length, 'transfer-encoding': encoding } = req.headers;
  return encoding !== undefined || Number(length) > 0;
}

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
    if (linger && hasUnreadBody(request.raw)) {
      request.raw.resume();
      lingerAfterAnswer(request.raw.socket, linger.limits, linger.ended);
      reply.header('connection', 'close');
    } else if (readiness.draining) reply.header('connection', 'close');
    reply
      .code(status)
      .type('application/json; charset=utf-8')
      .send(JSON.stringify({ statusCode: status, code: error.code, error: STATUS_CODES[status], message }));
  };
}
