// What the routes are given: the part of the configuration they read (so not all of config.ts), metrics, the pipeline.

import type { RequestLimits } from '../core/limits.ts';
import type { RelayMetrics } from '../ops/metrics.ts';
import type { LiveProjectSet, Pipeline } from '../pipeline/index.ts';

export interface RouteOptions {
  config: RouteConfig;
  metrics: RelayMetrics;
  pipeline: Pipeline;
  /** The projects in force; a request reads them once, at its start (projects/live.ts). */
  projects: LiveProjectSet;
}

/** What the routes read of the configuration (config.ts's Config holds it with the rest). */
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
