// Load shedding: past a threshold (in flight, loop delay, heap, RSS; config.ts sizes them from the pod's limits) a
// request gets 503 + Retry-After at once, decided as Node announces it, ahead of Sentry's wrapper and Fastify, from
// prebuilt headers (decision 018); /readyz fails meanwhile; probes, /metrics and static assets always pass.

import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { Lane, Readiness } from '@app/service-kit';
import underPressure from '@fastify/under-pressure';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { turnClock } from './loop-turn.ts';
import type { Metrics } from './metrics.ts';
import { isProbeOrAsset } from './service-paths.ts';

/** When requests are answered 503 instead of queued (thresholds 0 = that check is off). */
export interface LoadShedding {
  /** Requests being answered at once; one more is answered 503 at once (static assets and probes not counted). */
  maxInFlight: number;
  maxEventLoopDelayMs: number;
  /** CPU milliseconds the current loop turn has spent on requests; a request read later is refused (loop-turn.ts). */
  maxTurnWaitMs: number;
  maxHeapUsedBytes: number;
  maxRssBytes: number;
  retryAfterSeconds: number;
}

const exempt = (url = '/') => isProbeOrAsset(url.split('?', 1)[0] as string);
// A loop that lags while mostly idle is short of CPU (a neighbour's burst, the quota's throttling), not overloaded:
// shedding would not help it. One busy over 90 % of a second is doing this process's own work.
const BUSY_LOOP = 0.9;
// Shedding is logged as it starts and then once per interval with the count, never once per refused request.
const LOG_EVERY_MS = 10_000;
// Refusals decided per request (inFlight, turnWait) keep readiness failing this long after the last one, as the
// sampled checks do for their one-second sample.
const REFUSED_RECENTLY_MS = 1_000;
// Node publishes each request here before it emits it to the server, through the wrapper Sentry puts on the server's
// emit. That wrapper passes straight through a request carrying the SDK's mark, the one that keeps a second copy of
// the SDK from instrumenting a request twice: a refused request gets it, so no scope, trace or span is made for it.
const REQUEST_START = 'http.server.request.start';
const SENTRY_INSTRUMENTED = Symbol.for('sentry_http_server_instrumented');
const REFUSED = Symbol('load-shedding.refused');

interface Refusal {
  reason: string;
  body: string;
  headers: OutgoingHttpHeaders;
  counter: { inc(): void };
}

interface Decided extends IncomingMessage {
  [REFUSED]?: Refusal;
  [SENTRY_INSTRUMENTED]?: boolean;
}

export interface LoadShedder {
  /** The front door's lane: answers a request refused (see `register`) and returns true; false for the rest. */
  lane: Lane;
  /**
   * Decides each request on `app.server` as it arrives, samples load with under-pressure, makes readiness fail while
   * shedding, logs through `app`.
   */
  register(app: FastifyInstance, readiness: Readiness): Promise<void>;
}

export function createLoadShedder(options: { limits: LoadShedding; metrics: Metrics }): LoadShedder {
  const { limits, metrics } = options;
  // Until registered and a whole sample (1 s) after the server was ready nothing is sampled: the start's own
  // synchronous work (loading modules, building routes) reads as a blocked loop.
  let countsFrom = Number.POSITIVE_INFINITY;
  let app: FastifyInstance | undefined;
  let log: FastifyBaseLogger | undefined;

  /** The sampled threshold crossed, if any. A lagging loop counts only while busy with this process's own work. */
  const pressure = (): string | undefined => {
    if (!app || performance.now() < countsFrom) return undefined;
    const { heapUsed, rssBytes, eventLoopDelay, eventLoopUtilized } = app.memoryUsage();
    if (limits.maxHeapUsedBytes > 0 && heapUsed > limits.maxHeapUsedBytes) return 'heapUsedBytes';
    if (limits.maxRssBytes > 0 && rssBytes > limits.maxRssBytes) return 'rssBytes';
    const lagging = limits.maxEventLoopDelayMs > 0 && eventLoopDelay > limits.maxEventLoopDelayMs;
    return lagging && eventLoopUtilized > BUSY_LOOP ? 'eventLoopDelay' : undefined;
  };

  /** The answer to a request refused for `reason`, built once per reason: a refusal allocates nothing of its own. */
  const refusals = new Map<string, Refusal>();
  const refusalFor = (reason: string): Refusal => {
    const built = refusals.get(reason);
    if (built) return built;
    const body = `The service is overloaded (${reason}); retry in ${limits.retryAfterSeconds} s.\n`;
    const headers = {
      'retry-after': String(limits.retryAfterSeconds),
      'cache-control': 'no-store',
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'x-content-type-options': 'nosniff',
    };
    const refusal = { reason, body, headers, counter: metrics.shedRequests.labels(reason) };
    refusals.set(reason, refusal);
    return refusal;
  };

  let inFlight = 0;
  const turnWaited = turnClock();
  const release = () => {
    inFlight--;
  };
  /** Counts `req` in flight, or marks it refused (and done with, for Sentry) with the threshold it crossed. */
  const decide = (req: Decided, res: ServerResponse): void => {
    if (exempt(req.url)) return;
    const reason =
      limits.maxInFlight > 0 && inFlight >= limits.maxInFlight
        ? 'inFlight'
        : limits.maxTurnWaitMs > 0 && turnWaited() > limits.maxTurnWaitMs
          ? 'turnWait'
          : pressure();
    if (reason !== undefined) {
      req[REFUSED] = refusalFor(reason);
      req[SENTRY_INSTRUMENTED] = true;
      return;
    }
    inFlight++;
    res.once('close', release);
  };

  let shedSinceLog = 0;
  let loggedAt = Number.NEGATIVE_INFINITY;
  let lastRefused: { at: number; reason: string } | undefined;
  const refuse = (res: ServerResponse, refusal: Refusal): void => {
    refusal.counter.inc();
    shedSinceLog++;
    const now = performance.now();
    lastRefused = { at: now, reason: refusal.reason };
    if (now - loggedAt >= LOG_EVERY_MS) {
      const { reason } = refusal;
      log?.warn({ reason, shed: shedSinceLog, inFlight, maxInFlight: limits.maxInFlight }, 'shedding load');
      shedSinceLog = 0;
      loggedAt = now;
    }
    // A string body goes out with the head in one write.
    res.writeHead(503, refusal.headers);
    res.end(refusal.body);
  };

  return {
    lane: (req: Decided, res: ServerResponse) => {
      const refusal = req[REFUSED];
      if (refusal === undefined) return false;
      refuse(res, refusal);
      return true;
    },

    async register(fastify, readiness) {
      app = fastify;
      log = fastify.log;
      const server = fastify.server;
      const onRequestStart = (message: unknown) => {
        const {
          request,
          response,
          server: target,
        } = message as { request: Decided; response: ServerResponse; server: Server };
        if (target === server) decide(request, response);
      };
      subscribe(REQUEST_START, onRequestStart);
      fastify.addHook('onClose', async () => {
        unsubscribe(REQUEST_START, onRequestStart);
      });
      fastify.addHook('onReady', async () => {
        countsFrom = performance.now() + 2_000;
      });
      // Sampling only (no thresholds given, so under-pressure adds no hook of its own): every second, with the loop's
      // utilization over that second rather than since the start.
      await fastify.register(underPressure, { eventLoopUtilizationMode: 'interval' });
      readiness.checks.push(() => {
        const reason = pressure();
        if (reason === undefined) {
          if (lastRefused === undefined || performance.now() - lastRefused.at > REFUSED_RECENTLY_MS) return undefined;
          return `shedding load (${lastRefused.reason}): requests refused within the last ${REFUSED_RECENTLY_MS / 1000} s`;
        }
        const { eventLoopDelay, eventLoopUtilized, heapUsed, rssBytes } = fastify.memoryUsage();
        const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;
        // Infinity: the loop was busy for a whole sample interval (under-pressure saw no tick at all).
        const delay = Number.isFinite(eventLoopDelay) ? `${Math.round(eventLoopDelay)} ms` : 'a whole sample interval';
        const busy = `${Math.round(eventLoopUtilized * 100)} % busy`;
        return `shedding load (${reason}): event-loop delay ${delay}, ${busy}, heap ${mib(heapUsed)}, RSS ${mib(rssBytes)}`;
      });
    },
  };
}
