// How a route answers with a refusal: status, headers and a JSON body saying what was wrong.
import type { IncomingMessage } from 'node:http';
import { type LingerLimits, lingerWhileUnread } from '@app/service-kit';
import type { FastifyBaseLogger } from 'fastify';
import type { RelayError } from '../core/errors.ts';
import type { RelayMetrics } from '../ops/metrics.ts';

/** A refusal as a route sends it: status, headers and the JSON body `{"error", "detail"}`. */
export interface Refusal {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: string;
}

/**
 * Counts and logs a refusal and says how to answer it, the same on every route. A refusal before the whole body
 * arrived (too large, a DSN not allowed, no memory) ends the connection: the rest is discarded as it comes, within
 * `linger`'s bounds, so a client still sending reads the answer (service-kit's linger.ts).
 */
export function refuse(
  error: RelayError,
  req: IncomingMessage,
  context: { metrics: RelayMetrics; log: FastifyBaseLogger; message: string; linger: LingerLimits; requestId?: string },
): Refusal {
  context.metrics.rejected.inc({ reason: error.code });
  context.log.warn(
    { requestId: context.requestId, code: error.code, status: error.statusCode, detail: error.message },
    context.message,
  );
  req.resume();
  if (!lingerUnread(req, context.linger, context.metrics)) {
    return { status: error.statusCode, headers: error.headers, body: bodyOf(error) };
  }
  return { status: error.statusCode, headers: { ...error.headers, connection: 'close' }, body: bodyOf(error) };
}

/**
 * When `req`'s body is still arriving, makes the close after its answer a lingering one, counted; the caller sends
 * that answer with `Connection: close` (service-kit's lingerWhileUnread).
 */
export function lingerUnread(req: IncomingMessage, linger: LingerLimits, metrics: RelayMetrics): boolean {
  return lingerWhileUnread(req, linger, (end) => metrics.lingers.inc({ end }));
}

const bodyOf = (error: RelayError) => JSON.stringify({ error: error.code, detail: error.message });
