// Load shedding: past a threshold (event-loop delay, heap, RSS: config.ts sizes them from the pod's limits) requests
// are answered at once with 503 and Retry-After instead of queueing until every one of them is late. /readyz fails
// meanwhile so the load balancer sends traffic elsewhere; /healthz (liveness) and /metrics are always answered.

import type { Readiness } from '@app/service-kit';
import underPressure, { type FastifyUnderPressureOptions } from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import type { LoadShedding } from './config.ts';
import type { Metrics } from './metrics.ts';

type Handler = NonNullable<FastifyUnderPressureOptions['pressureHandler']>;
const ALWAYS_ANSWERED = new Set(['/healthz', '/readyz', '/metrics']);

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
  const underPressureNow = () => performance.now() >= countsFrom && app.isUnderPressure();
  await app.register(underPressure, {
    maxEventLoopDelay: limits.maxEventLoopDelayMs,
    maxHeapUsedBytes: limits.maxHeapUsedBytes,
    maxRssBytes: limits.maxRssBytes,
    // Sampled every second (under-pressure's default): the mean delay over a second, so that a moment without CPU
    // (a neighbour's burst, the CPU quota's throttling) does not shed requests the process could serve.
    // A returned body is what under-pressure sends, undefined lets the request through (its code does both; its
    // types admit only the second).
    pressureHandler: ((req, reply, type) => {
      if (performance.now() < countsFrom || ALWAYS_ANSWERED.has(req.url.split('?', 1)[0] as string)) return undefined;
      metrics.shedRequests.inc({ reason: type });
      reply
        .code(503)
        .header('retry-after', String(limits.retryAfterSeconds))
        .header('cache-control', 'no-store')
        .type('text/plain; charset=utf-8');
      return `The service is overloaded (${type}); retry in ${limits.retryAfterSeconds} s.\n`;
    }) as (...args: Parameters<Handler>) => string | undefined as Handler,
  });
  readiness.checks.push(() => {
    if (!underPressureNow()) return undefined;
    const { eventLoopDelay, heapUsed, rssBytes } = app.memoryUsage();
    const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;
    // Infinity: the loop was busy for a whole sample interval (under-pressure saw no tick at all).
    const delay = Number.isFinite(eventLoopDelay) ? `${Math.round(eventLoopDelay)} ms` : 'a whole sample interval';
    return `shedding load: event-loop delay ${delay}, heap ${mib(heapUsed)}, RSS ${mib(rssBytes)}`;
  });
}
