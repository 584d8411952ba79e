// Load shedding: past a threshold (event-loop delay, heap, RSS: config.ts sizes them from the pod's limits) requests
// are answered at once with 503 and Retry-After instead of queueing until every one of them is late. /readyz fails
// meanwhile so the load balancer sends traffic elsewhere; /healthz (liveness) and /metrics are always answered.

import type { Readiness } from '@app/service-kit';
import underPressure, { type FastifyUnderPressureOptions } from '@fastify/under-pressure';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { LoadShedding } from './config.ts';
import type { Metrics } from './metrics.ts';

type Handler = NonNullable<FastifyUnderPressureOptions['pressureHandler']>;
const ALWAYS_ANSWERED = new Set(['/healthz', '/readyz', '/metrics']);
const exempt = (url: string) => ALWAYS_ANSWERED.has(url.split('?', 1)[0] as string) || url.startsWith('/assets/');
// A loop that lags while mostly idle is short of CPU (a neighbour's burst, the quota's throttling), not overloaded:
// shedding would not help it. One busy over 90 % of a second is doing this process's own work.
const BUSY_LOOP = 0.9;

export async function registerLoadShedding(
  app: FastifyInstance,
  options: { limits: LoadShedding; readiness: Readiness; metrics: Metrics },
): Promise<void> {
  const { limits, readiness, metrics } = options;
  // The first samples after start cover the start's own synchronous work (loading modules, building routes), which
  // reads as a blocked loop: pressure counts once a whole sample (1 s) has been taken after the server was ready.
  let countsFrom = Number.POSITIVE_INFINITY;
  app.addHook('onReady', async () => {
    countsFrom = performance.now() + 2_000;
  });
  /** The threshold crossed, if any. A lagging loop counts only while it is busy with this process's own work. */
  const shedReason = (): string | undefined => {
    if (performance.now() < countsFrom) return undefined;
    const { heapUsed, rssBytes, eventLoopDelay, eventLoopUtilized } = app.memoryUsage();
    if (limits.maxHeapUsedBytes > 0 && heapUsed > limits.maxHeapUsedBytes) return 'heapUsedBytes';
    if (limits.maxRssBytes > 0 && rssBytes > limits.maxRssBytes) return 'rssBytes';
    const lagging = limits.maxEventLoopDelayMs > 0 && eventLoopDelay > limits.maxEventLoopDelayMs;
    return lagging && eventLoopUtilized > BUSY_LOOP ? 'eventLoopDelay' : undefined;
  };
  // Beyond maxInFlight a request is refused before any work: under-pressure's samples come a second apart, and in
  // that second a crowd of clients would all be let in at once.
  let inFlight = 0;
  app.addHook('onRequest', async (req, reply) => {
    if (limits.maxInFlight === 0 || exempt(req.url)) return;
    if (inFlight >= limits.maxInFlight) return reply.send(refusal(reply, 'inFlight'));
    inFlight++;
    reply.raw.once('close', () => inFlight--);
  });
  /** Counts a shed request, sets its status and headers, and returns its body. */
  const refusal = (reply: FastifyReply, reason: string): string => {
    metrics.shedRequests.inc({ reason });
    reply
      .code(503)
      .header('retry-after', String(limits.retryAfterSeconds))
      .header('cache-control', 'no-store')
      .type('text/plain; charset=utf-8');
    return `The service is overloaded (${reason}); retry in ${limits.retryAfterSeconds} s.\n`;
  };
  await app.register(underPressure, {
    maxEventLoopDelay: limits.maxEventLoopDelayMs,
    maxHeapUsedBytes: limits.maxHeapUsedBytes,
    maxRssBytes: limits.maxRssBytes,
    // Sampled every second (under-pressure's default), utilization over that second rather than since the start.
    eventLoopUtilizationMode: 'interval',
    // A returned body is what under-pressure sends, undefined lets the request through (its code does both; its
    // types admit only the second).
    pressureHandler: ((req, reply) => {
      const reason = shedReason();
      return reason === undefined || exempt(req.url) ? undefined : refusal(reply, reason);
    }) as (...args: Parameters<Handler>) => string | undefined as Handler,
  });
  readiness.checks.push(() => {
    const reason = shedReason();
    if (reason === undefined) return undefined;
    const { eventLoopDelay, eventLoopUtilized, heapUsed, rssBytes } = app.memoryUsage();
    const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;
    // Infinity: the loop was busy for a whole sample interval (under-pressure saw no tick at all).
    const delay = Number.isFinite(eventLoopDelay) ? `${Math.round(eventLoopDelay)} ms` : 'a whole sample interval';
    const busy = `${Math.round(eventLoopUtilized * 100)} % busy`;
    return `shedding load (${reason}): event-loop delay ${delay}, ${busy}, heap ${mib(heapUsed)}, RSS ${mib(rssBytes)}`;
  });
}
