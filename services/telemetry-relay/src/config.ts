// Every environment variable the relay reads, validated at startup; a wrong one stops it naming the variable.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Env, EnvReader, NetworkPrefixes, ServerConfig } from '@app/service-kit';
import {
  containerMemoryLimit,
  DEFAULT_PREFIXES,
  readConnectionLimits,
  readEnv,
  readServerConfig,
  readTrustedProxyHops,
} from '@app/service-kit';
import { DEFAULT_MAX_ITEM_HEADER_BYTES, DEFAULT_MAX_TOTAL_HEADER_BYTES, type RequestLimits } from './core/limits.ts';
import { defaultBudgetBytes } from './core/memory/limit.ts';
import type { SpoolMode } from './core/types.ts';
import { type ProjectsConfig, readProjectsConfig, type ShorthandConfig } from './projects/env-config.ts';

const MiB = 1024 * 1024;
/** A per-user directory: a fixed name in the shared temp dir could be created (or linked) by another user first. */
const DEFAULT_SPOOL_DIR = join(tmpdir(), `telemetry-relay-${process.getuid?.() ?? 'user'}`, 'spool');

/** Every environment variable the service reads, validated in one place (routes/route-config.ts: the routes' part). */
export interface Config extends ShorthandConfig {
  /** TUNNEL_PATH, else for each of ALLOWED_DSNS the path SDK 11's `tunnel: true` derives; no trailing slash. */
  tunnelPaths: string[];
  /** UPSTREAM_URL: every envelope goes here instead of its DSN's own Sentry. */
  upstreamUrl: URL | undefined;
  trustedProxyHops: number;
  /** LOG_SAMPLE_EVERY: one accepted envelope in this many is logged. */
  logSampleEvery: number;
  limits: RequestLimits;
  /** The projects and the one-project shorthand (projects/env-config.ts). */
  projects: ProjectsConfig;
  server: ServerConfig;
  metricsPort: number | undefined;
  /** What is running, for relay_build_info: RELEASE and REVISION (set by the image build). */
  build: { version: string; revision: string };
  /** The one byte budget for everything held in memory (core/memory/budget.ts). */
  memory: {
    budgetBytes: number;
    /** Most of the budget one client (address) may hold at once. */
    perClientBytes: number;
    /** The container's limit the default budget was derived from (undefined: none). */
    containerLimitBytes: number | undefined;
  };
  /** How many leading address bits name one client for its memory and spool shares (service-kit's clientNetwork). */
  clientPrefixes: NetworkPrefixes;
  /** The tunnel's HTTP server: what a slow or greedy client may hold. */
  connections: {
    headersTimeoutMs: number;
    /** Whole request, headers and body (BODY_TIMEOUT_MS plus a margin: the tunnel answers 408 itself first). */
    requestTimeoutMs: number;
    keepAliveTimeoutMs: number;
    maxConnections: number;
  };
  spool: {
    dir: string;
    private: boolean;
    mode: SpoolMode;
    sync: 'normal' | 'full';
    maxEnvelopes: number;
    maxBytes: number;
    /** Most of them one client (network) may keep: spool/shares.ts. */
    perClientEnvelopes: number;
    perClientBytes: number;
    maxAgeMs: number;
    maxMemoryBytes: number;
  };
  upstream: {
    concurrency: number;
    /** Replay sends more at once only while the event loop runs at most this late, ms (0: unpaced). */
    replayMaxLoopDelayMs: number;
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

  const { projects, tunnelPaths, ...shorthand } = readProjectsConfig(env, reader);

  const metricsPort =
    reader.optionalString('METRICS_PORT') === undefined
      ? undefined
      : reader.integer('METRICS_PORT', 0, { min: 0, max: 65535 });
  const maxEnvelopeBytes = reader.integer('MAX_ENVELOPE_BYTES', 20 * MiB, { min: 1024, max: 200 * MiB });
  const { budgetBytes, containerLimitBytes } = readBudget(reader, maxEnvelopeBytes);
  const bodyTimeoutMs = reader.integer('BODY_TIMEOUT_MS', 30_000, { min: 100, max: 600_000 });
  // The server's own backstop, later than the tunnel's 408.
  const requestTimeoutMs = bodyTimeoutMs + 5_000;

  const spoolBounds = {
    maxEnvelopes: reader.integer('SPOOL_MAX_ENVELOPES', 100_000, { min: 1, max: 100_000_000 }),
    maxBytes: reader.integer('SPOOL_MAX_BYTES', 512 * MiB, { min: MiB, max: 1024 * 1024 * MiB }),
  };

  // Read in this order (the object's), so a bad configuration's problems are listed as before.
  const config: Config = {
    server,
    tunnelPaths,
    projects,
    ...shorthand,
    upstreamUrl: reader.optionalUrl('UPSTREAM_URL'),
    trustedProxyHops: readTrustedProxyHops(reader),
    metricsPort,
    logSampleEvery: reader.integer('LOG_SAMPLE_EVERY', 1000, { min: 1, max: 1_000_000 }),
    build: { version: reader.string('RELEASE', 'dev'), revision: reader.string('REVISION', 'unknown') },
    limits: readLimits(reader, maxEnvelopeBytes, bodyTimeoutMs),
    memory: {
      budgetBytes,
      perClientBytes: reader.integer(
        'MEMORY_PER_CLIENT_BYTES',
        Math.max(Math.floor(budgetBytes / 4), Math.min(budgetBytes, maxEnvelopeBytes + MiB)),
        { min: MiB, max: budgetBytes },
      ),
      containerLimitBytes,
    },
    clientPrefixes: {
      v4: reader.integer('CLIENT_IPV4_PREFIX', DEFAULT_PREFIXES.v4, { min: 8, max: 32 }),
      v6: reader.integer('CLIENT_IPV6_PREFIX', DEFAULT_PREFIXES.v6, { min: 16, max: 128 }),
    },
    connections: readConnectionLimits(reader, requestTimeoutMs, { maxConnections: 2_048 }),
    spool: readSpool(reader, spoolBounds, maxEnvelopeBytes, budgetBytes),
    upstream: readUpstream(env, reader),
  };
  reader.done();
  return config;
}

/** MEMORY_BUDGET_BYTES, by default a share of the container's memory limit; at least two largest envelopes. */
function readBudget(reader: EnvReader, maxEnvelopeBytes: number) {
  const containerLimitBytes = containerMemoryLimit();
  const budgetBytes = reader.integer('MEMORY_BUDGET_BYTES', defaultBudgetBytes(containerLimitBytes), {
    min: 8 * MiB,
    max: 64 * 1024 * MiB,
  });
  reader.check(
    'MEMORY_BUDGET_BYTES',
    budgetBytes >= 2 * maxEnvelopeBytes
      ? undefined
      : `(${budgetBytes}) must be at least twice MAX_ENVELOPE_BYTES (${maxEnvelopeBytes}): a largest envelope is held once as it arrives and once until it is sent${containerLimitBytes === undefined ? '' : ` (the default is ${defaultBudgetBytes(containerLimitBytes)}, a share of the container's ${containerLimitBytes}-byte memory limit)`}`,
  );
  return { budgetBytes, containerLimitBytes };
}

function readLimits(reader: EnvReader, maxEnvelopeBytes: number, bodyTimeoutMs: number): RequestLimits {
  return {
    maxBodyBytes: reader.integer('MAX_BODY_BYTES', maxEnvelopeBytes, { min: 1024, max: 200 * MiB }),
    maxEnvelopeBytes,
    maxEventItemBytes: reader.integer('MAX_EVENT_ITEM_BYTES', 1 * MiB, { min: 1024, max: 100 * MiB }),
    maxItems: reader.integer('MAX_ITEMS', 1000, { min: 1, max: 100_000 }),
    // Relay's own parser reads the same lines: these bound the JSON work per envelope (see envelope/parse.ts).
    maxHeaderBytes: 64 * 1024,
    maxItemHeaderBytes: DEFAULT_MAX_ITEM_HEADER_BYTES,
    maxTotalHeaderBytes: DEFAULT_MAX_TOTAL_HEADER_BYTES,
    bodyTimeoutMs,
    refusedBodyLingerMs: reader.integer('REFUSED_BODY_LINGER_MS', 5_000, { min: 0, max: 60_000 }),
    maxDecompressionRatio: reader.integer('MAX_DECOMPRESSION_RATIO', 100, { min: 2, max: 100_000 }),
  };
}

function readSpool(
  reader: EnvReader,
  { maxEnvelopes, maxBytes }: { maxEnvelopes: number; maxBytes: number },
  maxEnvelopeBytes: number,
  budgetBytes: number,
): Config['spool'] {
  return {
    dir: reader.string('SPOOL_DIR', DEFAULT_SPOOL_DIR),
    /** The default dir sits in the shared temp dir: it must be this user's alone (checked when opened). */
    private: reader.optionalString('SPOOL_DIR') === undefined,
    mode: reader.oneOf('SPOOL_MODE', ['durable', 'fast'], 'durable'),
    sync: reader.oneOf('SPOOL_SYNC', ['normal', 'full'], 'normal'),
    maxEnvelopes,
    maxBytes,
    // An eighth each, and at least one largest envelope: eight networks must fill it, not one.
    perClientEnvelopes: reader.integer('SPOOL_PER_CLIENT_ENVELOPES', Math.max(1, Math.floor(maxEnvelopes / 8)), {
      min: 1,
      max: maxEnvelopes,
    }),
    perClientBytes: reader.integer(
      'SPOOL_PER_CLIENT_BYTES',
      Math.max(Math.floor(maxBytes / 8), Math.min(maxBytes, maxEnvelopeBytes)),
      { min: 1024, max: maxBytes },
    ),
    maxAgeMs: reader.integer('SPOOL_MAX_AGE_SECONDS', 24 * 3600, { min: 1, max: 30 * 24 * 3600 }) * 1000,
    maxMemoryBytes: reader.integer('MEMORY_QUEUE_MAX_BYTES', Math.min(64 * MiB, Math.floor(budgetBytes / 2)), {
      min: MiB,
      max: 4096 * MiB,
    }),
  };
}

function readUpstream(env: Env, reader: EnvReader): Config['upstream'] {
  return {
    concurrency: reader.integer('UPSTREAM_CONCURRENCY', 256, { min: 1, max: 10_000 }),
    replayMaxLoopDelayMs: readReplayMaxLoopDelay(env, reader),
    pipelining: reader.integer('UPSTREAM_PIPELINING', 1, { min: 1, max: 100 }),
    connectTimeoutMs: reader.integer('UPSTREAM_CONNECT_TIMEOUT_MS', 3_000, { min: 10, max: 120_000 }),
    requestTimeoutMs: reader.integer('UPSTREAM_TIMEOUT_MS', 10_000, { min: 10, max: 600_000 }),
    retryBaseMs: reader.integer('RETRY_BASE_MS', 1_000, { min: 1, max: 3_600_000 }),
    retryMaxMs: reader.integer('RETRY_MAX_MS', 60_000, { min: 1, max: 3_600_000 }),
    clientReportIntervalMs: reader.integer('CLIENT_REPORT_INTERVAL_MS', 10_000, { min: 10, max: 3_600_000 }),
  };
}

/**
 * Replay's pace. REPLAY_MAX_LOOP_PERCENT (decision 029) paced by a signal live traffic alone kept near its bound;
 * it was replaced (decision 034), and a deployment still setting it is stopped rather than silently repaced.
 */
function readReplayMaxLoopDelay(env: Env, reader: EnvReader): number {
  const old = env.REPLAY_MAX_LOOP_PERCENT?.trim();
  reader.check(
    'REPLAY_MAX_LOOP_PERCENT',
    old ? 'is no longer read: set REPLAY_MAX_LOOP_DELAY_MS instead (0 = unpaced)' : undefined,
  );
  return reader.integer('REPLAY_MAX_LOOP_DELAY_MS', 5, { min: 0, max: 1_000 });
}
