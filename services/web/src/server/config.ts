// Every environment variable the web service reads, validated at startup; a wrong one stops it naming the variable.
import {
  type ConnectionLimits,
  containerCpuLimit,
  containerMemoryLimit,
  type Env,
  readConnectionLimits,
  readEnv,
  readServerConfig,
  readTrustedProxyHops,
  type ServerConfig,
} from '@app/service-kit';
import type { LoadShedding } from './ops/load-shedding.ts';
import { readSentryConfig, type SentryConfig } from './telemetry/sentry-config.ts';

/** Every environment variable the service reads, validated in one place (the Sentry ones by telemetry/sentry-config.ts, which
 * instrument.ts reads too). Documented in docs/configuration.md. */
export interface Config {
  server: ServerConfig;
  /** The SDKs' settings and where telemetry goes, as instrument.ts reads them too (telemetry/sentry-config.ts). */
  sentry: SentryConfig;
  /** Extra origins allowed to POST actions (a proxy that rewrites Host, say), besides this host itself. */
  allowedOrigins: string[];
  /** The site's public origin, for canonical and Open Graph URLs (see http/canonical-origin.ts); undefined: not set. */
  publicOrigin: string | undefined;
  /** Routes that fail on purpose, for end-to-end tests. Never on in production. */
  diagnostics: boolean;
  /** /metrics, /healthz and /readyz on this port (the admin port; 0 = any free one); undefined = /metrics on the main port. */
  metricsPort: number | undefined;
  /** Compress responses here (precompressed assets, documents and page data on the fly); off when an edge does. */
  compression: boolean;
  /** Log one successful request in this many (every response with status >= 400 is logged). */
  logSampleEvery: number;
  /** The commit running (REVISION, set by the image build), for web_build_info with the release. */
  revision: string;
  /** How long the example item page's related items take: its deferred part, streamed after the shell. */
  catalogRelatedDelayMs: number;
  /** Proxies in front whose X-Forwarded-Proto/-Host/-For are believed (the edge: 1); 0 = none. */
  trustedProxyHops: number;
  /** What a slow or idle client may hold (see "Timeouts and load shedding" in the README). */
  connections: ConnectionLimits;
  /** Listening sockets on PORT (SO_REUSEPORT; 1 = only the server's own): how many new connections a loop turn accepts. */
  acceptSockets: number;
  loadShedding: LoadShedding;
}

// Shedding starts at these shares of the container's memory limit, before the kernel's OOM killer would act (V8 does
// not size its heap from the limit, so heap growth alone can reach it); off without a limit (a laptop, the bench).
const HEAP_SHARE = 0.6;
const RSS_SHARE = 0.8;
const LIMIT_RANGE = { min: 0, max: 2 ** 50 };
const defaultShare = (limit: number | undefined, share: number) =>
  limit === undefined ? 0 : Math.floor(limit * share);

// Requests in flight per CPU: 32 waiting on one CPU is at most about half a second of queue (decision 008).
const IN_FLIGHT_PER_CPU = 32;

export function loadConfig(env: Env, memoryLimit = containerMemoryLimit(), cpuLimit = containerCpuLimit()): Config {
  const reader = readEnv(env);
  const server = readServerConfig(reader, 3000);
  const sentry = readSentryConfig(reader);
  const allowedOrigins = reader.list('ALLOWED_ORIGINS');
  for (const origin of allowedOrigins) {
    const url = URL.parse(origin);
    reader.check(
      'ALLOWED_ORIGINS',
      url && url.origin === origin
        ? undefined
        : `must list origins such as https://example.com (got ${JSON.stringify(origin)})`,
    );
  }
  const publicOrigin = reader.optionalString('PUBLIC_ORIGIN');
  if (publicOrigin !== undefined) {
    reader.check(
      'PUBLIC_ORIGIN',
      URL.parse(publicOrigin)?.origin === publicOrigin
        ? undefined
        : `must be an origin such as https://example.com (got ${JSON.stringify(publicOrigin)})`,
    );
  }
  const compressionText = reader.string('COMPRESSION', 'on');
  reader.check(
    'COMPRESSION',
    compressionText === 'on' || compressionText === 'off'
      ? undefined
      : `must be "on" or "off" (got ${JSON.stringify(compressionText)})`,
  );
  const requestTimeoutMs = reader.integer('REQUEST_TIMEOUT_MS', 30_000, { min: 1_000, max: 600_000 });
  const metricsPort = reader.optionalString('METRICS_PORT')
    ? reader.integer('METRICS_PORT', 0, { min: 0, max: 65535 })
    : undefined;
  const config: Config = {
    server,
    sentry,
    allowedOrigins,
    publicOrigin,
    diagnostics: reader.boolean('DIAGNOSTICS', false),
    metricsPort,
    compression: compressionText !== 'off',
    logSampleEvery: reader.integer('LOG_SAMPLE_EVERY', 100, { min: 1, max: 1_000_000 }),
    revision: reader.string('REVISION', 'unknown'),
    catalogRelatedDelayMs: reader.integer('CATALOG_RELATED_DELAY_MS', 20, { min: 0, max: 60_000 }),
    trustedProxyHops: readTrustedProxyHops(reader),
    connections: readConnectionLimits(reader, requestTimeoutMs, { maxConnections: 1_024 }),
    acceptSockets: reader.integer('ACCEPT_SOCKETS', process.platform === 'linux' ? 64 : 1, { min: 1, max: 256 }),
    loadShedding: {
      maxInFlight: reader.integer('SHED_MAX_IN_FLIGHT', Math.ceil((cpuLimit ?? 2) * IN_FLIGHT_PER_CPU), {
        min: 0,
        max: 1_000_000,
      }),
      maxEventLoopDelayMs: reader.integer('SHED_EVENT_LOOP_DELAY_MS', 250, { min: 0, max: 60_000 }),
      maxTurnWaitMs: reader.integer('SHED_TURN_WAIT_MS', 250, { min: 0, max: 60_000 }),
      maxHeapUsedBytes: reader.integer('SHED_HEAP_USED_BYTES', defaultShare(memoryLimit, HEAP_SHARE), LIMIT_RANGE),
      maxRssBytes: reader.integer('SHED_RSS_BYTES', defaultShare(memoryLimit, RSS_SHARE), LIMIT_RANGE),
      retryAfterSeconds: reader.integer('SHED_RETRY_AFTER_SECONDS', 5, { min: 1, max: 3_600 }),
    },
  };
  reader.done();
  return config;
}
