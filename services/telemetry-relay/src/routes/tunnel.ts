// POST <TUNNEL_PATH>: the body read within limits, its header line and then its items handed to the pipeline
// (pipeline/index.ts), its answer written. Served by node:http ahead of Fastify, as Fastify would (decision 002).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientAddress, lingerLimits, requestIdFrom } from '@app/service-kit';
import type { FastifyBaseLogger } from 'fastify';
import { RelayError } from '../core/errors.ts';
import type { ClientShares } from '../core/memory/budget.ts';
import { counting } from '../ops/metrics.ts';
import {
  type Answer,
  type Arrival,
  type AuthorizedProject,
  type EnvelopeHeader,
  type Pipeline,
  pageTokenOf,
  readBody,
} from '../pipeline/index.ts';
import { createAnswersAfterTurn } from './answers-after-turn.ts';
import { allowOrigin, crossOrigin, isPreflight, preflightAnswer } from './cors.ts';
import { lingerUnread, refuse } from './refuse.ts';
import type { RouteOptions } from './route-config.ts';

export interface TunnelOptions extends RouteOptions {
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
  const bodyLimits = {
    maxBodyBytes: config.limits.maxBodyBytes,
    maxEnvelopeBytes: config.limits.maxEnvelopeBytes,
    timeoutMs: config.limits.bodyTimeoutMs,
    maxDecompressionRatio: config.limits.maxDecompressionRatio,
    maxHeaderBytes: config.limits.maxHeaderBytes,
  };
  const linger = lingerLimits(config.limits.refusedBodyLingerMs, config.limits.maxBodyBytes);
  let requests = 0;
  const received = counting(metrics.received)();
  const pipeline: Pipeline = options.pipeline;
  const answerAfterTurn = createAnswersAfterTurn();

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
    // Draining, or the body not read to its end (see refuse.ts): this connection ends with the answer.
    if (options.draining() || !req.complete) res.setHeader('connection', 'close');
    res.end(body);
  };
  const refused = (req: IncomingMessage, res: ServerResponse, error: RelayError, requestId: string) => {
    const { status, body, headers } = refuse(error, req, {
      metrics,
      log,
      message: 'envelope rejected',
      linger,
      requestId,
    });
    send(req, res, status, body, headers);
  };

  return (req, res) => {
    const requestId = requestIdFrom(req, config.trustedProxyHops);
    res.setHeader('x-request-id', requestId);
    received.inc();
    if (req.method !== 'POST') {
      req.resume();
      if (isPreflight(req)) {
        // No body, so no DSN: an origin some project allows; the POST is checked against its own project.
        const origin = req.headers.origin as string;
        const answer = preflightAnswer(origin, options.projects.current().anyAllowsOrigin(origin));
        if (answer.status !== 204) metrics.rejected.inc({ reason: 'origin_not_allowed' });
        res.writeHead(answer.status, answer.headers).end(answer.body);
        return;
      }
      // A body on its way (a PUT of megabytes): the client reads the 405 before the connection ends.
      lingerUnread(req, linger, metrics);
      send(req, res, 405, '{"error":"method_not_allowed","detail":"send envelopes with POST"}', { allow: 'POST' });
      return;
    }
    if (options.closing()) {
      refused(req, res, new RelayError('draining', 'the relay is shutting down'), requestId);
      return;
    }
    const started = performance.now();
    const ip = clientAddress(req.socket.remoteAddress ?? '', req.headers['x-forwarded-for'], config.trustedProxyHops);
    // The body is read within the client's share of the memory budget, released once the envelope is safe.
    const hold = shares.hold(ip);
    let header: EnvelopeHeader | undefined;
    let authorized: AuthorizedProject | undefined;
    const origin = crossOrigin(req);
    // The projects in force when the request arrived: a reload meanwhile does not change this envelope's settings.
    const arrival: Arrival = {
      projects: options.projects.current(),
      origin,
      pageToken: () => pageTokenOf(req.headers, req.url),
      header: {},
      authorized: undefined,
    };
    /** The 200 and its sampled log line; the client's memory hold is released before (`answered`, or at once). */
    const reply = ({ body, headers }: Answer) => {
      send(req, res, 200, body, headers);
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
    };
    const answered = (answer: Answer) => {
      hold.release();
      reply(answer);
    };
    const failed = (error: unknown) => {
      hold.release();
      if (error instanceof RelayError) {
        refused(req, res, error, requestId);
        return;
      }
      metrics.rejected.inc({ reason: 'internal' });
      log.error({ requestId, err: error }, 'tunnel request failed');
      // Failed before the body ended (send closes): a client still uploading reads the 500, as a refusal.
      req.resume();
      lingerUnread(req, linger, metrics);
      // No Retry-After on a 5xx: the SDK would stop sending everything for that long.
      send(req, res, 500, '{"error":"internal","detail":"the relay failed to handle this envelope"}');
    };
    readBody(req, req.headers, bodyLimits, {
      hold,
      onHeaderLine(line) {
        try {
          ({ header, authorized } = pipeline.admitHeader(line, arrival));
        } finally {
          // A caller its project lists reads the answer, a refusal after the origin stage (a page token's) too.
          if (origin !== undefined && arrival.authorized?.settings.origins?.has(origin)) allowOrigin(res, origin);
        }
      },
    }).then((body) => {
      try {
        if (body.length === 0 || !header || !authorized) {
          throw new RelayError('empty', 'the body is empty; expected a Sentry envelope');
        }
        // A string when the envelope is safe at once (fast mode): no promise per stage, answered with the rest of
        // this turn's answers after its sends (answers-after-turn.ts).
        const answer = pipeline.process(body, header, authorized, { address: ip, headers: req.headers });
        if (!(answer instanceof Promise)) {
          hold.release();
          answerAfterTurn(() => reply(answer));
        } else answer.then(answered, failed);
      } catch (error) {
        failed(error);
      }
    }, failed);
  };
}
