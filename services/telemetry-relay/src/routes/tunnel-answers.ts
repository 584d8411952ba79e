// How the tunnel answers: JSON with a status, the connection closed while draining or when the body was not read to
// its end; a refusal as refuse.ts words it, anything else a 500.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LingerLimits } from '@app/service-kit';
import type { FastifyBaseLogger } from 'fastify';
import { RelayError } from '../core/errors.ts';
import type { RelayMetrics } from '../ops/metrics.ts';
import { lingerUnread, refuse } from './refuse.ts';

export interface TunnelAnswers {
  send(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    body: string,
    headers?: Readonly<Record<string, string>>,
  ): void;
  /** The refusal's answer, counted and logged. */
  refused(req: IncomingMessage, res: ServerResponse, error: RelayError, requestId: string): void;
  /** A refusal, or any other error as the relay's own failure (a 500). */
  failed(req: IncomingMessage, res: ServerResponse, error: unknown, requestId: string): void;
}

export function createTunnelAnswers(options: {
  metrics: RelayMetrics;
  log: FastifyBaseLogger;
  linger: LingerLimits;
  draining(): boolean;
}): TunnelAnswers {
  const { metrics, log, linger } = options;
  const answers: TunnelAnswers = {
    send(req, res, status, body, headers) {
      if (res.headersSent || res.destroyed) return;
      res.statusCode = status;
      res.setHeader('content-type', 'application/json');
      if (headers) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      // Draining, or the body not read to its end (see refuse.ts): this connection ends with the answer.
      if (options.draining() || !req.complete) res.setHeader('connection', 'close');
      res.end(body);
    },
    refused(req, res, error, requestId) {
      const context = { metrics, log, message: 'envelope rejected', linger, requestId };
      const { status, body, headers } = refuse(error, req, context);
      answers.send(req, res, status, body, headers);
    },
    failed(req, res, error, requestId) {
      if (error instanceof RelayError) {
        answers.refused(req, res, error, requestId);
        return;
      }
      metrics.rejected.inc({ reason: 'internal' });
      log.error({ requestId, err: error }, 'tunnel request failed');
      // Failed before the body ended (send closes): a client still uploading reads the 500, as a refusal.
      req.resume();
      lingerUnread(req, linger, metrics);
      // No Retry-After on a 5xx: the SDK would stop sending everything for that long.
      answers.send(req, res, 500, '{"error":"internal","detail":"the relay failed to handle this envelope"}');
    },
  };
  return answers;
}
