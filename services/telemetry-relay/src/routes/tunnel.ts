// POST <TUNNEL_PATH>: the body read within limits, its header line and then its items handed to the pipeline
// (pipeline/index.ts), its answer written. Served by node:http ahead of Fastify, as Fastify would (decision 002).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type LingerLimits, requestClientAddress, requestIdFrom } from '@app/service-kit';
import type { FastifyBaseLogger } from 'fastify';
import { RelayError } from '../core/errors.ts';
import type { ClientShares } from '../core/memory/budget.ts';
import { counting } from '../ops/metrics.ts';
import {
  type Answer,
  type Arrival,
  type AuthorizedProject,
  type BodyLimits,
  type EnvelopeHeader,
  pageTokenOf,
  readBody,
} from '../pipeline/index.ts';
import { createAnswersAfterTurn } from './answers-after-turn.ts';
import { allowOrigin, crossOrigin, isPreflight, preflightAnswer } from './cors.ts';
import { lingerUnread } from './refuse.ts';
import type { RouteOptions } from './route-config.ts';
import { createTunnelAnswers, type TunnelAnswers } from './tunnel-answers.ts';

export interface TunnelOptions extends RouteOptions {
  /** The memory budget, shared fairly between clients. */
  shares: ClientShares;
  /** How a refused body's connection ends (the one app.ts made from the limits for every route). */
  linger: LingerLimits;
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

/** What every tunnel request shares: the options, the limits derived from them, the answers and the counters. */
interface Tunnel {
  options: TunnelOptions;
  bodyLimits: BodyLimits;
  linger: LingerLimits;
  answers: TunnelAnswers;
  answerAfterTurn: (answer: () => void) => void;
  /** Requests accepted, for the sampled log line. */
  accepted: number;
}

export function createTunnelHandler(options: TunnelOptions): TunnelHandler {
  const { config, metrics, linger } = options;
  const { limits } = config;
  const tunnel: Tunnel = {
    options,
    bodyLimits: {
      maxBodyBytes: limits.maxBodyBytes,
      maxEnvelopeBytes: limits.maxEnvelopeBytes,
      timeoutMs: limits.bodyTimeoutMs,
      maxDecompressionRatio: limits.maxDecompressionRatio,
      maxHeaderBytes: limits.maxHeaderBytes,
    },
    linger,
    answers: createTunnelAnswers({ metrics, log: options.log, linger, draining: options.draining }),
    answerAfterTurn: createAnswersAfterTurn(),
    accepted: 0,
  };
  const received = counting(metrics.received)();
  return (req, res) => {
    const requestId = requestIdFrom(req, config.trustedProxyHops);
    res.setHeader('x-request-id', requestId);
    received.inc();
    if (req.method !== 'POST') notPost(tunnel, req, res);
    else if (options.closing()) {
      tunnel.answers.refused(req, res, new RelayError('draining', 'the relay is shutting down'), requestId);
    } else receiveEnvelope(tunnel, req, res, requestId);
  };
}

/** A preflight is answered for the origins some project allows; any other method is a 405. */
function notPost({ options, linger, answers }: Tunnel, req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  if (isPreflight(req)) {
    // No body, so no DSN: an origin some project allows; the POST is checked against its own project.
    const origin = req.headers.origin as string;
    const answer = preflightAnswer(origin, options.projects.current().anyAllowsOrigin(origin));
    if (answer.status !== 204) options.metrics.rejected.inc({ reason: 'origin_not_allowed' });
    res.writeHead(answer.status, answer.headers).end(answer.body);
    return;
  }
  // A body on its way (a PUT of megabytes): the client reads the 405 before the connection ends.
  lingerUnread(req, linger, options.metrics);
  answers.send(req, res, 405, '{"error":"method_not_allowed","detail":"send envelopes with POST"}', { allow: 'POST' });
}

/** One envelope: its body read within the client's share of the memory budget, the pipeline's answer written. */
function receiveEnvelope(tunnel: Tunnel, req: IncomingMessage, res: ServerResponse, requestId: string): void {
  const { options, answers } = tunnel;
  const { pipeline, config } = options;
  const started = performance.now();
  const ip = requestClientAddress(req, config.trustedProxyHops);
  // The body is read within the client's share of the memory budget, released once the envelope is safe.
  const hold = options.shares.hold(ip);
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
  /** The client's memory hold is released before the answer: at once, or once the envelope is safe. */
  const reply = (answer: Answer) => accepted(tunnel, req, res, answer, requestId, started);
  const failed = (error: unknown) => {
    hold.release();
    answers.failed(req, res, error, requestId);
  };
  readBody(req, req.headers, tunnel.bodyLimits, {
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
        tunnel.answerAfterTurn(() => reply(answer));
      } else {
        answer.then((settled) => {
          hold.release();
          reply(settled);
        }, failed);
      }
    } catch (error) {
      failed(error);
    }
  }, failed);
}

/** The 200 and its log line, one in LOG_SAMPLE_EVERY. */
function accepted(
  tunnel: Tunnel,
  req: IncomingMessage,
  res: ServerResponse,
  { body, headers }: Answer,
  requestId: string,
  started: number,
): void {
  tunnel.answers.send(req, res, 200, body, headers);
  const every = tunnel.options.config.logSampleEvery;
  if (tunnel.accepted++ % every === 0) {
    const ms = Math.round((performance.now() - started) * 100) / 100;
    tunnel.options.log.info({ requestId, ms, sampleOneIn: every }, 'envelope accepted');
  }
}
