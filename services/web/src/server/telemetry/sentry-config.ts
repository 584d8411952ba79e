// The variables the Node SDK is set up from, read by one parser for both readers: instrument.ts, which runs first
// (`node --import`) so the SDK can instrument http before it loads, and config.ts with the rest of the service's
// configuration. Nothing imported here may load Fastify.
import { type Env, type EnvReader, readEnv } from '@app/service-kit/env';
import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';
import { tunnelDestination } from './endpoints.ts';

export interface SentryConfig {
  dsn: string | undefined;
  release: string | undefined;
  environment: string;
  tracesSampleRate: number;
  /** Sentry organization of incoming traces to continue (else taken from the DSN's host, when it has one). */
  orgId: string | undefined;
  /** Incoming sampled trace decisions honoured per second (beyond: decided here); see trace-budget.ts. */
  traceContinuationPerSecond: number;
  /**
   * Same-origin path the browser SDK posts envelopes to (the ingress routes it to the relay): TUNNEL_PATH, else the
   * one SDK 11's `tunnel: true` derives from the DSN (decision 048); undefined = off, or no DSN to report with.
   */
  tunnelPath: string | undefined;
  /** Where this service forwards `POST <tunnelPath>` when there is no ingress (local runs); undefined = not served. */
  tunnelTarget: URL | undefined;
  /**
   * Where the Node SDK posts its envelopes (its `tunnel` option): SERVER_TUNNEL_URL, else the relay the tunnel path
   * forwards to, so locally the relay is the one way out for telemetry, as the browser's is. Undefined: the DSN's host.
   */
  serverTunnelUrl: string | undefined;
  /**
   * RELAY_PAGE_TOKEN_SECRET (the relay's PAGE_TOKEN_SECRET) and PAGE_TOKEN_TTL_SECONDS: when set, every page and
   * page-data answer carries a page token the browser SDK sends the relay (page-tokens.ts); undefined = off.
   */
  pageToken: { secret: string; ttlSeconds: number } | undefined;
}

/** Reads the Sentry variables into `reader`, which records what is wrong with them (see EnvReader.done). */
export function readSentryConfig(reader: EnvReader): SentryConfig {
  const dsn = reader.optionalString('SENTRY_DSN');
  reader.check(
    'SENTRY_DSN',
    dsn === undefined || /^https?:\/\/[^@/]+@[^/]+\/(?:.*\/)?\d+$/.test(dsn)
      ? undefined
      : 'must look like https://<public key>@<host>/<project id>',
  );
  // Unset: the path SDK 11's `tunnel: true` derives from the DSN (decision 048); no DSN, nothing to tunnel.
  const derived = dsn === undefined ? 'off' : tunnelPathOf(dsn);
  const tunnel = reader.optionalString('TUNNEL_PATH') ?? derived ?? '';
  const tunnelPath = tunnel === 'off' ? undefined : tunnel;
  reader.check(
    'TUNNEL_PATH',
    tunnelPath === undefined || /^\/[\w\-./]*$/.test(tunnelPath)
      ? undefined
      : tunnel === ''
        ? 'must be set: SENTRY_DSN is not a DSN the SDK derives a tunnel path from'
        : `must be an absolute path such as /x7k2q9, or "off" (got ${JSON.stringify(tunnel)})`,
  );
  const tunnelTarget = reader.optionalUrl('TUNNEL_TARGET');
  const explicitTunnel = reader.optionalUrl('SERVER_TUNNEL_URL');
  const rateText = reader.string('SENTRY_TRACES_SAMPLE_RATE', '0.1');
  const tracesSampleRate = Number(rateText);
  reader.check(
    'SENTRY_TRACES_SAMPLE_RATE',
    /^\d+(\.\d+)?$/.test(rateText) && tracesSampleRate <= 1
      ? undefined
      : `must be a number from 0 to 1 (got ${JSON.stringify(rateText)})`,
  );
  const orgId = reader.optionalString('SENTRY_ORG_ID');
  reader.check(
    'SENTRY_ORG_ID',
    orgId === undefined || /^\d+$/.test(orgId) ? undefined : `must be a number (got ${JSON.stringify(orgId)})`,
  );
  const secret = reader.optionalString('RELAY_PAGE_TOKEN_SECRET');
  reader.check(
    'RELAY_PAGE_TOKEN_SECRET',
    secret === undefined || secret.length >= 32
      ? undefined
      : "must be at least 32 characters, the relay's PAGE_TOKEN_SECRET",
  );
  // Two hours: a page left open that long still sends; navigations renew it (page-tokens.ts).
  const ttlSeconds = reader.integer('PAGE_TOKEN_TTL_SECONDS', 7200, { min: 60, max: 24 * 3600 });
  return {
    pageToken: secret === undefined || dsn === undefined ? undefined : { secret, ttlSeconds },
    dsn,
    release: reader.optionalString('SENTRY_RELEASE'),
    environment: reader.string('SENTRY_ENVIRONMENT', 'production'),
    tracesSampleRate,
    orgId,
    traceContinuationPerSecond: reader.integer('TRACE_CONTINUATION_PER_SECOND', 10, { min: 0, max: 1_000_000 }),
    tunnelPath,
    tunnelTarget,
    serverTunnelUrl:
      explicitTunnel?.href ??
      (tunnelPath && tunnelTarget ? tunnelDestination(tunnelPath, tunnelTarget).href : undefined),
  };
}

/**
 * For instrument.ts: the Sentry settings, or undefined when any of them is wrong. The SDK then stays off, and the
 * service stops right after at config.ts, naming every wrong variable.
 */
export function loadSentryConfig(env: Env): SentryConfig | undefined {
  const reader = readEnv(env);
  const config = readSentryConfig(reader);
  try {
    reader.done();
    return config;
  } catch {
    return undefined;
  }
}
