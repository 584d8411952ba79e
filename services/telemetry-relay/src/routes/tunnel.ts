import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestIdFrom } from '@app/service-kit';
import type { FastifyBaseLogger } from 'fastify';
import { type EnvelopeHeader, parseEnvelope, parseEnvelopeHeader } from '../envelope/parse.ts';
import { RelayError } from '../errors.ts';
import type { ClientShares } from '../memory/budget.ts';
import { counting } from '../ops/metrics.ts';
import { type Authorized, createAuthorizer } from '../pipeline/authorize.ts';
import { readBody } from '../pipeline/bound.ts';
import { clientAddress } from '../pipeline/identity.ts';
import { createEnvelopeStages, type StageOptions } from './envelope-stages.ts';

/**
 * POST <TUNNEL_PATH>: the pipeline, in the order the data flows — bound (with the envelope header line parsed and
 * authorized as soon as it arrives, before any item is read) → parse items → rate-limit → filter → identity →
 * deliver (forward, spool on failure); the stages after parsing are envelope-stages.ts, shared with CSP reports.
 *
 * This one route is served by node:http directly, ahead of Fastify (see app.ts): it is the hot path, and Fastify's
 * per-request machinery (request/reply objects, a child logger, hooks, content-type parsing) cost more than the
 * whole pipeline. What Fastify gives the other routes is done here by hand: X-Request-Id in and out, JSON errors,
 * sampled logs, Connection: close while draining, 503 once closing.
 */

export interface TunnelOptions extends StageOptions {
  /** The memory budget, shared fairly between clients. */
  shares: ClientShares;
  log: FastifyBaseLogger;
  /** Readiness is failing: answer, but close connections so clients move elsewhere. */
  draining: () => boolean;
  /** The server is closing: refuse new envelopes with 503. */
  closing: () => boolean;
}

export type TunnelHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** True when `url` (path and query) is the tunnel path, with or without a trailing slash. */
export function isTunnelUrl(url: string | undefined, tunnelPath: string): boolean {
  if (!url?.startsWith(tunnelPath)) return false;
  const rest = url.slice(tunnelPath.length);
  return rest === '' || rest === '/' || rest.startsWith('?') || rest.startsWith('/?');
}

export function createTunnelHandler(options: TunnelOptions): TunnelHandler {
  const { config, metrics, shares, log } = options;
  const authorize = createAuthorizer({ allowedDsns: config.allowedDsns, loopbackPorts: config.loopbackPorts });
  const bodyLimits = {
    maxBodyBytes: config.limits.maxBodyBytes,
    maxEnvelopeBytes: config.limits.maxEnvelopeBytes,
    timeoutMs: config.limits.bodyTimeoutMs,
    maxDecompressionRatio: config.limits.maxDecompressionRatio,
    maxHeaderBytes: config.limits.maxHeaderBytes,
  };
  let requests = 0;
  const received = counting(metrics.received)();
  const deliverEnvelope = createEnvelopeStages(options);

  /** Reads the body within the client's share of the memory budget, authorizing its header line on arrival. */
  const handle = async (req: IncomingMessage, res: ServerResponse, ip: string): Promise<string> => {
    let header: EnvelopeHeader | undefined;
    let authorized: Authorized | undefined;
    const hold = shares.hold(ip);
    try {
      const body = await readBody(req, req.headers, bodyLimits, {
        hold,
        onHeaderLine(line) {
          header = parseEnvelopeHeader(line, config.limits);
          authorized = authorize(header);
        },
      });
      if (body.length === 0 || !header || !authorized) {
        throw new RelayError('empty', 'the body is empty; expected a Sentry envelope');
      }
      return await deliverEnvelope(req, res, ip, parseEnvelope(body, config.limits, header), authorized);
    } finally {
      hold.release();
    }
  };

  const send = (
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    body: string,
    headers?: Readonly<Record<string, string>>,
  ) => {
    if (res.headersSent || res.destroyed) return;
    res.statusCode = status;
    res.setHeader('content-type', 'application/json');
    if (headers) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    // A refusal before the whole body arrived (too large, a DSN not allowed, no memory) ends the connection: what
    // is left of the body is discarded as it comes, never stored.
    if (options.draining() || !req.complete) res.setHeader('connection', 'close');
    res.end(body);
  };

  return (req, res) => {
    const requestId = requestIdFrom(req);
    res.setHeader('x-request-id', requestId);
    received.inc();
    if (req.method !== 'POST') {
      req.resume();
      send(req, res, 405, '{"error":"method_not_allowed","detail":"send envelopes with POST"}', { allow: 'POST' });
      return;
    }
    if (options.closing()) {
      req.resume();
      metrics.rejected.inc({ reason: 'draining' });
      send(req, res, 503, '{"error":"draining","detail":"the relay is shutting down"}');
      return;
    }
    const started = performance.now();
    const ip = clientAddress(req.socket.remoteAddress ?? '', req.headers['x-forwarded-for'], config.trustedProxyHops);
    handle(req, res, ip).then(
      (body) => {
        send(req, res, 200, body);
        if (requests++ % config.logSampleEvery === 0) {
          log.info(
            {
              requestId,
              ms: Math.round((performance.now() - started) * 100) / 100,
              sampleOneIn: config.logSampleEvery,
            },
            'envelope accepted',
          );
        }
      },
      (error: unknown) => {
        if (error instanceof RelayError) {
          metrics.rejected.inc({ reason: error.code });
          log.warn(
            { requestId, code: error.code, status: error.statusCode, detail: error.message },
            'envelope rejected',
          );
          send(req, res, error.statusCode, JSON.stringify({ error: error.code, detail: error.message }), error.headers);
          return;
        }
        metrics.rejected.inc({ reason: 'internal' });
        log.error({ requestId, err: error }, 'tunnel request failed');
        // No Retry-After on a 5xx: the SDK would stop sending everything for that long.
        send(req, res, 500, '{"error":"internal","detail":"the relay failed to handle this envelope"}');
      },
    );
  };
}
