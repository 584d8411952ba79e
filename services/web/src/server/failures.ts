// How the server accounts for a failure of its own (reported, logged, shown only as a digest) and for a client that
// left before its answer (neither).
import * as Sentry from '@sentry/node';
import type { FastifyRequest } from 'fastify';

/** nginx's status for a request whose client closed the connection first; what the metrics and logs record. */
export const CLIENT_CLOSED_REQUEST = 499;

/** Who caught the failure: the page handler (loaders, actions, rendering) or Fastify's error handler (the rest). */
export type FailureMechanism = 'auto.web.ssr' | 'auto.web.fastify';

/**
 * Reports a failure to Sentry as unhandled and logs it; returns the event id, the digest the user is shown, so a
 * screen, its log line and its Sentry event can be matched. `where` names the route or step that failed.
 */
export function reportServerFailure(
  req: FastifyRequest,
  error: unknown,
  mechanism: FailureMechanism,
  where?: string,
): string {
  const digest = Sentry.captureException(error, { mechanism: { type: mechanism, handled: false } });
  req.log.error({ err: error, digest, ...(where === undefined ? {} : { where }) }, 'server failure');
  return digest;
}
