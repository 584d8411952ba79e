// Request logs: one line per request (Fastify's own pair, "incoming request" + "request completed", is turned off),
// written for every response that is not a success and for one success in `sampleEvery`. Two info lines per request
// cost about a quarter of page-data throughput; failures keep their own error lines (with the digest) regardless.
import * as Sentry from '@sentry/node';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { type FinishedRequest, finishedRequest } from './metrics.ts';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = Parameters<FastifyBaseLogger['child']>[1];

/** Logs a finished request; `source.log` is read only for a line that is written (a child logger costs a few µs). */
export type RequestLog = (source: { readonly log: FastifyBaseLogger }, request: FinishedRequest) => void;

/** Longest URL a log line quotes (the page answers longer ones 414, but still logs them). */
const MAX_LOGGED_URL = 1024;
export const loggedUrl = (url: string) => (url.length > MAX_LOGGED_URL ? `${url.slice(0, MAX_LOGGED_URL)}…` : url);

export function sampledRequestLog(options: { sampleEvery: number }): RequestLog {
  let successes = 0;
  return (source, request) => {
    const { status } = request;
    if (status < 400 && successes++ % options.sampleEvery !== 0) return;
    source.log.info(
      {
        req: { method: request.method, url: loggedUrl(request.url) },
        res: { statusCode: status },
        route: request.routePattern ?? request.routeUrl,
        responseTime: Math.round(request.elapsedMs * 100) / 100,
        ...(status < 400 ? { sampleOneIn: options.sampleEvery } : {}),
      },
      'request completed',
    );
  };
}

export function logRequests(app: FastifyInstance, requestLog: RequestLog): void {
  app.addHook('onResponse', function logRequest(req, reply, done) {
    requestLog(req, finishedRequest(req, reply));
    done();
  });
}

/**
 * A request's log bindings with its trace id, so logs and Sentry traces can be joined. Read inside the request's
 * scope. Unsampled requests have no span (see instrument.ts): their trace id is their scope's, which is theirs alone
 * only while the SDK is enabled (it forks a scope per request).
 */
export function withTraceId(bindings: Bindings): Bindings {
  const traceId =
    Sentry.getActiveSpan()?.spanContext().traceId ??
    (Sentry.getClient()?.getDsn() ? Sentry.getCurrentScope().getPropagationContext().traceId : undefined);
  return traceId ? { ...bindings, traceId } : bindings;
}

/** Fastify's childLoggerFactory: the request's logger, with its trace id. */
export const requestLogger = (logger: FastifyBaseLogger, bindings: Bindings, options?: ChildLoggerOptions) =>
  logger.child(withTraceId(bindings), options);
