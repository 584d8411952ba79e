// How the server accounts for a failure of its own (reported, logged, shown only as a digest) and for a client that
// left before its answer (neither).
import type { IncomingMessage } from 'node:http';
import * as Sentry from '@sentry/node';
import type { FastifyBaseLogger } from 'fastify';
import { SERVER_ERROR_TEXT } from '../../framework/shared/page-data-protocol.ts';
import type { PageReply } from './page-io.ts';

/** nginx's status for a request whose client closed the connection first; what the metrics and logs record. */
export const CLIENT_CLOSED_REQUEST = 499;

/** Who caught the failure: the page handler (loaders, actions, rendering) or the server's error handler (the rest). */
export type FailureMechanism = 'auto.web.ssr' | 'auto.web.fastify';

/**
 * Reports a failure to Sentry as unhandled and logs it; returns the event id, the digest the user is shown, so a
 * screen, its log line and its Sentry event can be matched. `where` names the route or step that failed.
 */
export function reportServerFailure(
  req: { log: FastifyBaseLogger },
  error: unknown,
  mechanism: FailureMechanism,
  where?: string,
): string {
  const digest = Sentry.captureException(error, { mechanism: { type: mechanism, handled: false } });
  req.log.error({ err: error, digest, ...(where === undefined ? {} : { where }) }, 'server failure');
  return digest;
}

/**
 * Answers a failure outside the page code's own handling (a bug in this service) with the same screen and digest as
 * the page code, nothing internal. A client that left mid-request broke nothing of ours: logged, not reported.
 */
export function answerServerFailure(
  error: unknown,
  status: number,
  req: { log: FastifyBaseLogger; raw: IncomingMessage },
  reply: PageReply,
): PageReply {
  if (req.raw.socket?.destroyed) {
    req.log.info({ err: error }, 'client went away');
    return reply.code(CLIENT_CLOSED_REQUEST).send();
  }
  const digest = reportServerFailure(req, error, 'auto.web.fastify');
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .type('text/plain; charset=utf-8')
    .send(`${SERVER_ERROR_TEXT}\nDigest: ${digest}\n`);
}
