// Prometheus metrics: request duration by route pattern (never by raw URL, which would explode cardinality),
// SSR render time, and page requests by kind (document, page-data, action) and outcome.

import { type BuildInfo, registerBuildInfo } from '@app/service-kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { type TraceContinuationOutcome, traceContinuations } from '../telemetry/trace-budget.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The matched page route's pattern (e.g. /catalog/:slug), set by the page handler. */
    routePattern?: string;
  }
}

export interface Metrics {
  registry: Registry;
  requestDuration: Histogram<'method' | 'route' | 'status_code'>;
  ssrRender: Histogram<string>;
  pageRequests: Counter<'kind' | 'outcome'>;
  shedRequests: Counter<'reason'>;
}

export function createMetrics(build: BuildInfo = { version: 'dev', revision: 'unknown' }): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerBuildInfo(registry, 'web_build_info', build);
  registerTraceContinuations(registry);
  return {
    registry,
    requestDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by route pattern',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    ssrRender: new Histogram({
      name: 'ssr_render_seconds',
      help: 'Time from the loaders being done to the HTML shell being ready',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
      registers: [registry],
    }),
    pageRequests: new Counter({
      name: 'page_requests_total',
      help: 'Page requests by kind (document, page-data, action) and outcome (status, redirect, refused, reload)',
      labelNames: ['kind', 'outcome'],
      registers: [registry],
    }),
    shedRequests: new Counter({
      name: 'web_shed_requests_total',
      help: 'Requests answered 503 by load shedding, by the threshold crossed (inFlight, turnWait, eventLoopDelay, heapUsedBytes, rssBytes)',
      labelNames: ['reason'],
      registers: [registry],
    }),
  };
}

// Counted by instrument.ts, which runs before any registry exists: read when scraped.
function registerTraceContinuations(registry: Registry): void {
  new Counter<'outcome'>({
    name: 'web_trace_continuations_total',
    help: 'Incoming sampled trace decisions: continued within the budget, or over_budget (decided here instead)',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [outcome, count] of Object.entries(traceContinuations)) {
        this.inc({ outcome: outcome as TraceContinuationOutcome }, count);
      }
    },
  });
}

/** What a finished request is recorded and logged as. */
export interface FinishedRequest {
  method: string;
  url: string;
  /** The page handler's route pattern, if it set one. */
  routePattern: string | undefined;
  /** The route that answered, as registered (a page: `/*`). */
  routeUrl: string | undefined;
  status: number;
  elapsedMs: number;
}

/** The route label of a request: the page's pattern, else the route that answered; never a raw URL. */
const routeLabel = (request: FinishedRequest): string =>
  request.routePattern ?? (request.status === 404 ? 'unmatched' : (request.routeUrl ?? 'unmatched'));

export function observeRequest(metrics: Metrics, request: FinishedRequest): void {
  metrics.requestDuration.observe(
    { method: request.method, route: routeLabel(request), status_code: String(request.status) },
    request.elapsedMs / 1000,
  );
}

/** What Fastify's onResponse hooks know of a finished request. */
export const finishedRequest = (req: FastifyRequest, reply: FastifyReply): FinishedRequest => ({
  method: req.method,
  url: req.url,
  routePattern: req.routePattern,
  routeUrl: req.routeOptions.url,
  status: reply.statusCode,
  elapsedMs: reply.elapsedTime,
});

/** Records every request's duration; the pattern comes from the page handler, else Fastify's own route. */
export function recordRequests(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', function recordRequestDuration(req, reply, done) {
    observeRequest(metrics, finishedRequest(req, reply));
    done();
  });
}
