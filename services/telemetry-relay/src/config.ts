import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Env, readEnv, readServerConfig, type ServerConfig } from '@app/service-kit';
import { type IgnoreRule, ignoreRules } from '@app/telemetry-rules';
import { type Dsn, parseDsn } from './envelope/dsn.ts';
import type { SpoolMode } from './upstream/delivery.ts';

const MiB = 1024 * 1024;

/** Every environment variable the service reads, validated in one place. Documented in the README. */
export interface Config {
  server: ServerConfig;
  /** POST path of the tunnel (TUNNEL_PATH), without a trailing slash; the slash form is accepted too. */
  tunnelPath: string;
  allowedDsns: Dsn[];
  allowLoopbackDsns: boolean;
  /** Send every envelope here instead of the DSN's own Sentry (UPSTREAM_URL). */
  upstreamUrl: URL | undefined;
  ignoreRules: IgnoreRule[];
  trustedProxyHops: number;
  metricsPort: number | undefined;
  /** Log one in this many accepted envelopes (rejections are always logged). */
  logSampleEvery: number;
  limits: {
    maxBodyBytes: number;
    maxEnvelopeBytes: number;
    maxEventItemBytes: number;
    maxItems: number;
    maxHeaderBytes: number;
    bodyTimeoutMs: number;
  };
  spool: {
    dir: string;
    mode: SpoolMode;
    sync: 'normal' | 'full';
    maxEnvelopes: number;
    maxBytes: number;
    maxAgeMs: number;
    maxMemoryBytes: number;
  };
  upstream: {
    concurrency: number;
    pipelining: number;
    connectTimeoutMs: number;
    requestTimeoutMs: number;
    retryBaseMs: number;
    retryMaxMs: number;
    clientReportIntervalMs: number;
  };
}

export function loadConfig(env: Env): Config {
  const reader = readEnv(env);
  const server = readServerConfig(reader, 3001);

  const tunnelPath = reader.string('TUNNEL_PATH', '/monitoring').replace(/\/+$/, '');
  reader.check(
    'TUNNEL_PATH',
    /^\/[\w\-./~]+$/.test(tunnelPath)
      ? undefined
      : `must be a path like /monitoring (got ${JSON.stringify(tunnelPath)})`,
  );

  const allowedDsns: Dsn[] = [];
  for (const text of reader.list('ALLOWED_DSNS')) {
    const dsn = parseDsn(text);
    if (typeof dsn === 'string') reader.check('ALLOWED_DSNS', `entry ${JSON.stringify(text)} ${dsn}`);
    else allowedDsns.push(dsn);
  }
  const allowLoopbackDsns = reader.boolean('ALLOW_LOOPBACK_DSNS', false);
  if (allowedDsns.length === 0 && !allowLoopbackDsns && reader.list('ALLOWED_DSNS').length === 0) {
    reader.check(
      'ALLOWED_DSNS',
      'is required: the DSNs this relay forwards for (or ALLOW_LOOPBACK_DSNS=true in development to accept any DSN on a loopback host)',
    );
  }

  const ruleIds = reader.list('IGNORE_RULES', ['all']);
  let rules: IgnoreRule[] = [];
  if (ruleIds.length === 1 && ruleIds[0] === 'all') rules = [...ignoreRules];
  else if (!(ruleIds.length === 1 && ruleIds[0] === 'none')) {
    for (const id of ruleIds) {
      const rule = ignoreRules.find((r) => r.id === id);
      if (rule) rules.push(rule);
      else
        reader.check(
          'IGNORE_RULES',
          `names an unknown rule ${JSON.stringify(id)} (known: ${ignoreRules.map((r) => r.id).join(', ')}, or all/none)`,
        );
    }
  }

  const metricsPort =
    reader.optionalString('METRICS_PORT') === undefined
      ? undefined
      : reader.integer('METRICS_PORT', 0, { min: 0, max: 65535 });
  const maxEnvelopeBytes = reader.integer('MAX_ENVELOPE_BYTES', 20 * MiB, { min: 1024, max: 200 * MiB });

  const config: Config = {
    server,
    tunnelPath,
    allowedDsns,
    allowLoopbackDsns,
    upstreamUrl: reader.optionalUrl('UPSTREAM_URL'),
    ignoreRules: rules,
    trustedProxyHops: reader.integer('TRUSTED_PROXY_HOPS', 0, { min: 0, max: 10 }),
    metricsPort,
    logSampleEvery: reader.integer('LOG_SAMPLE_EVERY', 1000, { min: 1, max: 1_000_000 }),
    limits: {
      maxBodyBytes: reader.integer('MAX_BODY_BYTES', maxEnvelopeBytes, { min: 1024, max: 200 * MiB }),
      maxEnvelopeBytes,
      maxEventItemBytes: reader.integer('MAX_EVENT_ITEM_BYTES', 1 * MiB, { min: 1024, max: 100 * MiB }),
      maxItems: reader.integer('MAX_ITEMS', 1000, { min: 1, max: 100_000 }),
      maxHeaderBytes: 64 * 1024,
      bodyTimeoutMs: reader.integer('BODY_TIMEOUT_MS', 30_000, { min: 100, max: 600_000 }),
    },
    spool: {
      dir: reader.string('SPOOL_DIR', join(tmpdir(), 'telemetry-relay-spool')),
      mode: reader.oneOf('SPOOL_MODE', ['durable', 'fast'], 'durable'),
      sync: reader.oneOf('SPOOL_SYNC', ['normal', 'full'], 'normal'),
      maxEnvelopes: reader.integer('SPOOL_MAX_ENVELOPES', 100_000, { min: 1, max: 100_000_000 }),
      maxBytes: reader.integer('SPOOL_MAX_BYTES', 512 * MiB, { min: MiB, max: 1024 * 1024 * MiB }),
      maxAgeMs: reader.integer('SPOOL_MAX_AGE_SECONDS', 24 * 3600, { min: 1, max: 30 * 24 * 3600 }) * 1000,
      maxMemoryBytes: reader.integer('MEMORY_QUEUE_MAX_BYTES', 64 * MiB, { min: MiB, max: 4096 * MiB }),
    },
    upstream: {
      concurrency: reader.integer('UPSTREAM_CONCURRENCY', 256, { min: 1, max: 10_000 }),
      pipelining: reader.integer('UPSTREAM_PIPELINING', 1, { min: 1, max: 100 }),
      connectTimeoutMs: reader.integer('UPSTREAM_CONNECT_TIMEOUT_MS', 3_000, { min: 10, max: 120_000 }),
      requestTimeoutMs: reader.integer('UPSTREAM_TIMEOUT_MS', 10_000, { min: 10, max: 600_000 }),
      retryBaseMs: reader.integer('RETRY_BASE_MS', 1_000, { min: 1, max: 3_600_000 }),
      retryMaxMs: reader.integer('RETRY_MAX_MS', 60_000, { min: 1, max: 3_600_000 }),
      clientReportIntervalMs: reader.integer('CLIENT_REPORT_INTERVAL_MS', 10_000, { min: 10, max: 3_600_000 }),
    },
  };
  reader.done();
  return config;
}
