// The part of the configuration the routes read, so routes do not depend on all of config.ts.
import type { IgnoreRule } from '@app/telemetry-rules';
import type { Dsn } from '../envelope/dsn.ts';
import type { ScrubSettings } from '../pii/index.ts';
import type { InboundFilterSettings } from '../pipeline/inbound-filters/settings.ts';
import type { QuotaLookup } from '../pipeline/quota/stage.ts';

/** What the routes read of the configuration; config.ts's Config extends it with the rest. */
export interface RouteConfig {
  /**
   * POST paths of the tunnel, without a trailing slash (the slash form is accepted too): TUNNEL_PATH, else, for each
   * of ALLOWED_DSNS, the path SDK 11's `tunnel: true` derives.
   */
  tunnelPaths: string[];
  allowedDsns: Dsn[];
  /** Development only (ALLOW_LOOPBACK_DSNS): with no allowlist, loopback DSNs naming one of these ports. */
  loopbackPorts: number[];
  /** Send every envelope here instead of the DSN's own Sentry (UPSTREAM_URL). */
  upstreamUrl: URL | undefined;
  ignoreRules: IgnoreRule[];
  /** Relay's inbound filters (INBOUND_FILTERS, INBOUND_ERROR_MESSAGES, INBOUND_RELEASES). */
  inboundFilters: InboundFilterSettings;
  /** Data scrubbing, Sentry's project settings (SCRUB_*, SENSITIVE_FIELDS, SAFE_FIELDS). */
  scrub: ScrubSettings;
  /**
   * Quotas, spike shield and page token of the project a DSN's public key names (pipeline/quota/): the env
   * shorthand (QUOTA_*, SPIKE_SHIELD_*, PAGE_TOKEN_*) for every key until the projects file answers it.
   */
  quotaSettings: QuotaLookup;
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
