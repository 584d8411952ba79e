// What has been shed: counted, logged as shedding starts and then once per interval, the last refusal kept for
// readiness; never a line per refused request.
import type { FastifyBaseLogger } from 'fastify';

const LOG_EVERY_MS = 10_000;
// Refusals decided per request (inFlight, turnWait) keep readiness failing this long after the last one, as the
// sampled checks do for their one-second sample.
const REFUSED_RECENTLY_MS = 1_000;

export interface ShedRecord {
  /** One request refused for `reason` with `inFlight` requests being answered. */
  refused(reason: string, inFlight: number): void;
  /** Readiness's reason while a refusal is recent, else undefined. */
  recently(): string | undefined;
}

export function shedRecord(log: FastifyBaseLogger, maxInFlight: number): ShedRecord {
  let shedSinceLog = 0;
  let loggedAt = Number.NEGATIVE_INFINITY;
  let lastRefused: { at: number; reason: string } | undefined;
  return {
    refused(reason, inFlight) {
      shedSinceLog++;
      const now = performance.now();
      lastRefused = { at: now, reason };
      if (now - loggedAt < LOG_EVERY_MS) return;
      log.warn({ reason, shed: shedSinceLog, inFlight, maxInFlight }, 'shedding load');
      shedSinceLog = 0;
      loggedAt = now;
    },
    recently() {
      if (lastRefused === undefined || performance.now() - lastRefused.at > REFUSED_RECENTLY_MS) return undefined;
      return `shedding load (${lastRefused.reason}): requests refused within the last ${REFUSED_RECENTLY_MS / 1000} s`;
    },
  };
}
