// The relay assembled from its configuration: front door, tunnel and CSP routes, spool, delivery and metrics.
import { accessSync, constants } from 'node:fs';
import {
  createFrontDoor,
  type FrontDoorOptions,
  type LingerLimits,
  lingerLimits,
  networkOf,
  type ServiceApp,
} from '@app/service-kit';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import { createClientShares, createMemoryBudget, type MemoryBudget } from './core/memory/budget.ts';
import { createMetrics, type RelayMetrics } from './ops/metrics.ts';
import { createPipeline, createQuotaStage, OutcomeAggregator, RateLimits, type Target } from './pipeline/index.ts';
import { type LiveProjects, loadProjects } from './projects/index.ts';
import { serveRoutes } from './routes/index.ts';
import {
  createDelivery,
  createForwarder,
  type Delivery,
  openSpool,
  reportSpoolRecovered,
  type Spool,
} from './upstream/index.ts';

/** The ledger's project labels: the allowlist's project ids, and "loopback" when loopback DSNs are allowed. */
const ledgerProjects = (config: Config) => [
  ...config.allowedDsns.map((dsn) => dsn.projectId),
  ...(config.loopbackPorts.length > 0 ? ['loopback'] : []),
];

export interface BuildOptions {
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): unknown };
  /** The clock quotas, the spike shield and page tokens read (tests move it; Date.now otherwise). */
  now?: () => number;
}

/** The service, and its projects: main.ts reloads them on SIGHUP. */
export interface RelayApp extends ServiceApp {
  projects: LiveProjects;
}

/** Builds the service without listening, so tests can use inject() or a loopback port. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<RelayApp> {
  // Node would read an unrouted body to its end (up to requestTimeout), Fastify reset a client sending one too large.
  const linger = lingerLimits(config.limits.refusedBodyLingerMs, config.limits.maxBodyBytes);
  const door = await createFrontDoor(
    'telemetry-relay',
    config.server,
    doorOptions(config, options, linger, (end) => metrics.lingers.inc({ end })),
  );
  const { app, readiness } = door;
  // Every answer is JSON or text: no browser may read one as anything else.
  door.addLane('nosniff', (_req, res) => {
    res.setHeader('x-content-type-options', 'nosniff');
    return false;
  });
  const budget = createMemoryBudget(config.memory.budgetBytes);
  const clientNetwork = networkOf(config.clientPrefixes);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  const rateLimits = new RateLimits();
  const parts: MeteredParts = { rateLimits, budget };
  const metrics = relayMetrics(config, parts);
  // The projects in force (PROJECTS_FILE, or the environment's one), swapped whole by a reload (projects/live.ts).
  const { loopbackPorts, upstreamUrl, limits } = config;
  const watched = loadProjects(
    config.projects,
    { loopbackPorts, upstreamUrl, limits },
    { registry: metrics.registry, log: app.log },
  );
  const live = watched.live;
  // Replay asks the projects in force now: a DSN removed by a reload is no longer sent to.
  const upstream = openUpstream(config, { metrics, log: app.log, budget, clientNetwork, rateLimits }, (target) =>
    live.current().isAllowedDestination(target),
  );
  const { spool, delivery, forwarder } = upstream;
  Object.assign(parts, { spool, delivery });
  reportSpoolRecovered(metrics, app.log, spool.recovered, config.spool);
  const outcomes = new OutcomeAggregator<Target>();
  const clientReports = startClientReports(outcomes, delivery, config.upstream.clientReportIntervalMs, app.log);
  readiness.checks.push(() => spoolNotWritable(config.spool.dir));

  // The stages both routes hand their requests to: the tunnel's and the CSP reports'. One quota state for both: both
  // spend the project's quota.
  const quotas = createQuotaStage({ clientNetwork, ...(options.now ? { now: options.now } : {}) });
  const pipeline = createPipeline({ upstreamUrl, limits, metrics, rateLimits, quotas, delivery, outcomes });
  await serveRoutes(door, {
    config,
    metrics,
    pipeline,
    shares: createClientShares(budget, config.memory.perClientBytes, clientNetwork),
    projects: live,
    linger,
    draining: () => readiness.draining,
    closing: () => closing,
  });
  // With METRICS_PORT, an admin port: clients holding every tunnel connection (MAX_CONNECTIONS) cannot make the pod
  // look dead.
  door.serveMetrics(metrics.registry, { logLevel: 'warn' });

  app.addHook('onClose', async () => {
    clientReports.stop();
    watched.close();
    await clientReports.send();
    await delivery.close(Math.min(config.server.shutdownGraceMs / 2, config.upstream.requestTimeoutMs));
    await forwarder.close();
    spool.close();
  });
  return { app, readiness, projects: live };
}

/**
 * The tunnel path is served ahead of Fastify by a plain node:http handler, a lane of the front door (routes/tunnel.ts
 * says why); every other route (health, readiness, metrics) goes through Fastify.
 */
function doorOptions(
  config: Config,
  options: BuildOptions,
  linger: LingerLimits,
  lingerEnded: (end: string) => void,
): FrontDoorOptions {
  return {
    // Fastify's request lines quote the URL and Host, up to Node's 16 KiB header limit: the routes log their own
    // lines instead, sampled and without client text (issue 24).
    skipRequestLog: () => true,
    ...(options.logStream ? { logStream: options.logStream } : {}),
    trustedProxyHops: config.trustedProxyHops,
    connections: config.connections,
    metricsPort: config.metricsPort,
    fastify: { return503OnClosing: true },
    // A bad URL's 400 (service-kit's framework-errors.ts), counted as the other lingers once metrics exist.
    refusedBodyLinger: { limits: linger, ended: lingerEnded },
  };
}

/** What the gauges read; the spool and delivery are added once built (the spool needs the metrics' ledger first). */
interface MeteredParts {
  rateLimits: RateLimits;
  budget: MemoryBudget;
  spool?: Spool;
  delivery?: Delivery;
}

function relayMetrics(config: Config, parts: MeteredParts): RelayMetrics {
  const spool = () => parts.spool as Spool;
  return createMetrics(
    {
      spoolEnvelopes: () => spool().count,
      spoolBytes: () => spool().bytes,
      spoolOldestAgeSeconds: () => {
        const oldest = spool().count > 0 ? spool().oldestAcceptedAt() : undefined;
        return oldest === undefined ? 0 : (Date.now() - oldest) / 1000;
      },
      rateLimitsActive: () => parts.rateLimits.activeCount(),
      memoryQueue: () => parts.delivery?.memoryCount ?? 0,
      memoryBudget: () => parts.budget.limit,
      memoryHeld: () => parts.budget.used,
    },
    config.build,
    ledgerProjects(config),
  );
}

interface UpstreamNeeds {
  metrics: RelayMetrics;
  log: FastifyBaseLogger;
  budget: MemoryBudget;
  clientNetwork(address: string): string;
  rateLimits: RateLimits;
}

/** The forwarder, the spool (opened after the metrics: the ledger counts what it holds) and delivery through both. */
function openUpstream(
  config: Config,
  needs: UpstreamNeeds,
  isAllowedDestination: (target: { url: string; dsnKey: string }) => boolean,
) {
  const { spool: s, upstream: u } = config;
  const forwarder = createForwarder({
    connectionsPerOrigin: Math.ceil(u.concurrency / u.pipelining),
    pipelining: u.pipelining,
    connectTimeoutMs: u.connectTimeoutMs,
    requestTimeoutMs: u.requestTimeoutMs,
  });
  const spool = openSpool({
    dir: s.dir,
    sync: s.sync,
    private: s.private,
    maxAgeMs: s.maxAgeMs,
    ledger: needs.metrics.ledger,
  });
  const delivery = createDelivery({
    ...needs,
    mode: s.mode,
    spool,
    forwarder,
    isAllowedDestination,
    maxSpoolEnvelopes: s.maxEnvelopes,
    maxSpoolBytes: s.maxBytes,
    perClientSpoolEnvelopes: s.perClientEnvelopes,
    perClientSpoolBytes: s.perClientBytes,
    maxAgeMs: s.maxAgeMs,
    maxMemoryBytes: s.maxMemoryBytes,
    concurrency: u.concurrency,
    replayMaxLoopDelayMs: u.replayMaxLoopDelayMs,
    retryBaseMs: u.retryBaseMs,
    retryMaxMs: u.retryMaxMs,
  });
  return { forwarder, spool, delivery };
}

/** Outcomes of envelopes dropped whole, sent as one client report per project now and then. */
function startClientReports(
  outcomes: OutcomeAggregator<Target>,
  delivery: Delivery,
  intervalMs: number,
  log: FastifyBaseLogger,
) {
  const send = async () => {
    for (const { target, bytes } of outcomes.take()) {
      try {
        await delivery.accept({ ...target, headers: {}, body: bytes, acceptedAt: Date.now() });
      } catch (error) {
        log.warn({ err: error }, 'could not queue a client report');
      }
    }
  };
  const timer = setInterval(() => void send(), intervalMs);
  timer.unref();
  return { send, stop: () => clearInterval(timer) };
}

/** Readiness: undefined while the spool's directory is writable, else why not. */
function spoolNotWritable(dir: string): string | undefined {
  try {
    accessSync(dir, constants.W_OK);
    return undefined;
  } catch (error) {
    return `spool directory ${dir} is not writable (${(error as Error).message})`;
  }
}
