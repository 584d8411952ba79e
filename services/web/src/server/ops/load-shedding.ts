// Load shedding: past a threshold (in flight, loop delay, heap, RSS; config.ts sizes them from the pod's limits) a
// request gets 503 + Retry-After at once, decided as Node announces it, ahead of Sentry's wrapper and Fastify, from
// prebuilt headers (decision 018); /readyz fails meanwhile; probes, /metrics and static assets always pass.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Lane, Readiness } from '@app/service-kit';
import type { FastifyInstance } from 'fastify';
import { turnClock } from './loop-turn.ts';
import type { Metrics } from './metrics.ts';
import { markRefused, onRequestStart, refusalOf } from './request-start.ts';
import { isProbeOrAsset } from './service-paths.ts';
import { refusalAnswers, writeRefusal } from './shed-answers.ts';
import { type PressureLimits, samplePressure } from './shed-pressure.ts';
import { type ShedRecord, shedRecord } from './shed-record.ts';

/** When requests are answered 503 instead of queued (thresholds 0 = that check is off). */
export interface LoadShedding extends PressureLimits {
  /** Requests being answered at once; one more is answered 503 at once (static assets and probes not counted). */
  maxInFlight: number;
  /** CPU milliseconds the current loop turn has spent on requests; a request read later is refused (loop-turn.ts). */
  maxTurnWaitMs: number;
  retryAfterSeconds: number;
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

const exempt = (url = '/') => isProbeOrAsset(url.split('?', 1)[0] as string);

export function createLoadShedder(options: { limits: LoadShedding; metrics: Metrics }): LoadShedder {
  const { limits, metrics } = options;
  const refusalFor = refusalAnswers(limits.retryAfterSeconds, metrics);
  const turnWaited = turnClock();
  let inFlight = 0;
  const release = () => {
    inFlight--;
  };
  // Until registered, nothing is sampled or recorded (no request is decided before then either).
  let pressure = (): string | undefined => undefined;
  let record: ShedRecord | undefined;

  /** Counts `req` in flight, or marks it refused with the threshold it crossed. */
  const decide = (req: IncomingMessage, res: ServerResponse): void => {
    if (exempt(req.url)) return;
    const reason =
      limits.maxInFlight > 0 && inFlight >= limits.maxInFlight
        ? 'inFlight'
        : limits.maxTurnWaitMs > 0 && turnWaited() > limits.maxTurnWaitMs
          ? 'turnWait'
          : pressure();
    if (reason !== undefined) {
      markRefused(req, refusalFor(reason));
      return;
    }
    inFlight++;
    res.once('close', release);
  };

  return {
    lane: (req, res) => {
      const refusal = refusalOf(req);
      if (refusal === undefined) return false;
      refusal.counter.inc();
      record?.refused(refusal.reason, inFlight);
      writeRefusal(res, refusal);
      return true;
    },

    async register(app, readiness) {
      const sampled = await samplePressure(app, limits);
      pressure = sampled.reason;
      const shed = shedRecord(app.log, limits.maxInFlight);
      record = shed;
      const stop = onRequestStart(app.server, decide);
      app.addHook('onClose', async () => stop());
      readiness.checks.push(() => {
        const reason = sampled.reason();
        return reason === undefined ? shed.recently() : sampled.describe(reason);
      });
    },
  };
}
