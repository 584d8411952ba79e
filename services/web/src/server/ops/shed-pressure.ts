// The sampled half of load shedding: heap, RSS and a busy loop's delay, as under-pressure measures them each second.
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';

/** The sampled thresholds (0 = that check is off). */
export interface PressureLimits {
  maxEventLoopDelayMs: number;
  maxHeapUsedBytes: number;
  maxRssBytes: number;
}

export interface Pressure {
  /** The sampled threshold crossed, if any. */
  reason(): string | undefined;
  /** What readiness tells while `reason` holds: the sample's figures. */
  describe(reason: string): string;
}

// A loop that lags while mostly idle is short of CPU (a neighbour's burst, the quota's throttling), not overloaded:
// shedding would not help it. One busy over 90 % of a second is doing this process's own work.
const BUSY_LOOP = 0.9;

/** Samples `app`'s load with under-pressure; nothing counts until a whole sample after the server was ready. */
export async function samplePressure(app: FastifyInstance, limits: PressureLimits): Promise<Pressure> {
  // The start's own synchronous work (loading modules, building routes) reads as a blocked loop.
  let countsFrom = Number.POSITIVE_INFINITY;
  app.addHook('onReady', async () => {
    countsFrom = performance.now() + 2_000;
  });
  // Sampling only (no thresholds given, so under-pressure adds no hook of its own): every second, with the loop's
  // utilization over that second rather than since the start.
  await app.register(underPressure, { eventLoopUtilizationMode: 'interval' });
  return {
    reason() {
      if (performance.now() < countsFrom) return undefined;
      const { heapUsed, rssBytes, eventLoopDelay, eventLoopUtilized } = app.memoryUsage();
      if (limits.maxHeapUsedBytes > 0 && heapUsed > limits.maxHeapUsedBytes) return 'heapUsedBytes';
      if (limits.maxRssBytes > 0 && rssBytes > limits.maxRssBytes) return 'rssBytes';
      const lagging = limits.maxEventLoopDelayMs > 0 && eventLoopDelay > limits.maxEventLoopDelayMs;
      return lagging && eventLoopUtilized > BUSY_LOOP ? 'eventLoopDelay' : undefined;
    },
    describe(reason) {
      const { eventLoopDelay, eventLoopUtilized, heapUsed, rssBytes } = app.memoryUsage();
      const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;
      // Infinity: the loop was busy for a whole sample interval (under-pressure saw no tick at all).
      const delay = Number.isFinite(eventLoopDelay) ? `${Math.round(eventLoopDelay)} ms` : 'a whole sample interval';
      const busy = `${Math.round(eventLoopUtilized * 100)} % busy`;
      return `shedding load (${reason}): event-loop delay ${delay}, ${busy}, heap ${mib(heapUsed)}, RSS ${mib(rssBytes)}`;
    },
  };
}
