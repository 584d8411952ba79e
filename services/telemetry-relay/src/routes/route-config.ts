// What the routes are given: the part of the configuration they read (so not all of config.ts), metrics, the pipeline.
import type { RelayMetrics } from '../ops/metrics.ts';
import type { LiveProjectSet, Pipeline } from '../pipeline/index.ts';

export interface RouteOptions {
  config: RouteConfig;
  metrics: RelayMetrics;
  pipeline: Pipeline;
  /** The projects in force; a request reads them once, at its start (projects/live.ts). */
  projects: LiveProjectSet;
}

/** What the routes read of the configuration; config.ts's Config extends it with the rest. */
export interface RouteConfig {
  /**
   * POST paths of the tunnel, without a trailing slash (the slash form is accepted too): TUNNEL_PATH, else, for each
   * of ALLOWED_DSNS, the path SDK 11's `tunnel: true` derives.
   */
  tunnelPaths: string[];
  /** Send every envelope here instead of the DSN's own Sentry (UPSTREAM_URL). */
  upstreamUrl: URL | undefined;
  trustedProxyHops: number;
  /** Log one in this many accepted envelopes (rejections are always logged). */
  logSampleEvery: number;
  limits: RequestLimits;
}

/** What one request may be: read by the body reader (pipeline/read-body.ts) and the parser (envelope/parse.ts). */
export interface RequestLimits {
  maxBodyBytes: number;
  maxEnvelopeBytes: number;
  maxEventItemBytes: number;
  maxItems: number;
  maxHeaderBytes: number;
  maxItemHeaderBytes: number;
  maxTotalHeaderBytes: number;
  bodyTimeoutMs: number;
  /** After a refusal sent before the body arrived: how long the rest is still read and dropped (service-kit linger.ts). */
  refusedBodyLingerMs: number;
  /** A compressed body may expand to at most this many times its size (beyond a 1 MiB floor). */
  maxDecompressionRatio: number;
}
