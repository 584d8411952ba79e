// The relay assembled from its configuration: front door, tunnel and CSP routes, spool, delivery and metrics.
import { accessSync, constants } from 'node:fs';
import { createFrontDoor, lingerLimits, networkOf, type ServiceApp } from '@app/service-kit';
import type { Config } from './config.ts';
import { createClientShares, createMemoryBudget } from './core/memory/budget.ts';
import { createMetrics } from './ops/metrics.ts';
import { createPipeline, createQuotaStage, OutcomeAggregator, RateLimits, type Target } from './pipeline/index.ts';
import { type LiveProjects, loadProjects } from './projects/index.ts';
import { serveRoutes } from './routes/index.ts';
import { createDelivery, createForwarder, openSpool } from './upstream/index.ts';

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
  // The tunnel path is served ahead of Fastify by a plain node:http handler, a lane of the front door
  // (routes/tunnel.ts says why); every other route (health, readiness, metrics) goes through Fastify.
  // Node would read an unrouted body to its end (up to requestTimeout), Fastify reset a client sending one too large.
  const linger = lingerLimits(config.limits.refusedBodyLingerMs, config.limits.maxBodyBytes);
  const door = await createFrontDoor('telemetry-relay', config.server, {
    // Fastify's request lines quote the URL and Host, up to Node's 16 KiB header limit: the routes log their own
    // lines instead, sampled and without client text (issue 24).
    skipRequestLog: () => true,
    ...(options.logStream ? { logStream: options.logStream } : {}),
    trustedProxyHops: config.trustedProxyHops,
    connections: config.connections,
    metricsPort: config.metricsPort,
    fastify: { return503OnClosing: true },
    // A bad URL's 400 (service-kit's framework-errors.ts), counted as the other lingers once metrics exist.
    refusedBodyLinger: { limits: linger, ended: (end) => metrics.lingers.inc({ end }) },
  });
  const { app, readiness } = door;
  // Every answer is JSON or text: no browser may read one as anything else.
  door.addLane('nosniff', (_req, res) => {
    res.setHeader('x-content-type-options', 'nosniff');
    return false;
  });
  const budget = createMemoryBudget(config.memory.budgetBytes);
  const clientNetwork = networkOf(config.clientPrefixes);
  const shares = createClientShares(budget, config.memory.perClientBytes, clientNetwork);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  const rateLimits = new RateLimits();
  // One quota state for the tunnel and CSP reports: both spend the project's quota.
  const quotas = createQuotaStage({
    clientNetwork,
    ...(options.now ? { now: options.now } : {}),
  });
  const forwarder = createForwarder({
    connectionsPerOrigin: Math.ceil(config.upstream.concurrency / config.upstream.pipelining),
    pipelining: config.upstream.pipelining,
    connectTimeoutMs: config.upstream.connectTimeoutMs,
    requestTimeoutMs: config.upstream.requestTimeoutMs,
  });
  // The projects in force (PROJECTS_FILE, or the environment's one), swapped whole by a reload (projects/live.ts).
  const projectSetOptions = {
    loopbackPorts: config.loopbackPorts,
    upstreamUrl: config.upstreamUrl,
    limits: config.limits,
  };
  let projects: LiveProjects | undefined;
  let memoryQueue = () => 0;
  const metrics = createMetrics(
    {
      spoolEnvelopes: () => spool.count,
      spoolBytes: () => spool.bytes,
      spoolOldestAgeSeconds: () => {
        const oldest = spool.count > 0 ? spool.oldestAcceptedAt() : undefined;
        return oldest === undefined ? 0 : (Date.now() - oldest) / 1000;
      },
      rateLimitsActive: () => rateLimits.activeCount(),
      memoryQueue: () => memoryQueue(),
      memoryBudget: () => budget.limit,
      memoryHeld: () => budget.used,
    },
    config.build,
    ledgerProjects(config),
  );
  // After the metrics: the ledger counts what the spool holds as it opens (the previous process's pending).
  const spool = openSpool({
    dir: config.spool.dir,
    sync: config.spool.sync,
    private: config.spool.private,
    maxAgeMs: config.spool.maxAgeMs,
    ledger: metrics.ledger,
  });
  const delivery = createDelivery({
    mode: config.spool.mode,
    spool,
    forwarder,
    rateLimits,
    metrics,
    log: app.log,
    budget,
    // Replay asks the projects in force now: a DSN removed by a reload is no longer sent to.
    isAllowedDestination: (target) => (projects as LiveProjects).current().isAllowedDestination(target),
    maxSpoolEnvelopes: config.spool.maxEnvelopes,
    maxSpoolBytes: config.spool.maxBytes,
    perClientSpoolEnvelopes: config.spool.perClientEnvelopes,
    perClientSpoolBytes: config.spool.perClientBytes,
    clientNetwork,
    maxAgeMs: config.spool.maxAgeMs,
    maxMemoryBytes: config.spool.maxMemoryBytes,
    concurrency: config.upstream.concurrency,
    replayMaxLoopDelayMs: config.upstream.replayMaxLoopDelayMs,
    retryBaseMs: config.upstream.retryBaseMs,
    retryMaxMs: config.upstream.retryMaxMs,
  });
  memoryQueue = () => delivery.memoryCount;
  const { live, close: stopWatching } = loadProjects(config.projects, projectSetOptions, {
    registry: metrics.registry,
    log: app.log,
  });
  projects = live;
  const { lostRows, orphanFiles, expiredRows } = spool.recovered;
  if (lostRows > 0) {
    metrics.spoolDropped.inc({ reason: 'lost' }, lostRows);
    app.log.error({ lost: lostRows, dir: config.spool.dir }, 'spooled envelopes lost: their body files were missing');
  }
  if (expiredRows > 0) {
    metrics.spoolDropped.inc({ reason: 'expired' }, expiredRows);
    app.log.error(
      { expired: expiredRows, maxAgeMs: config.spool.maxAgeMs },
      'spooled envelopes expired before upstream took them',
    );
  }
  if (orphanFiles > 0) {
    app.log.info(
      { removed: orphanFiles },
      'removed body files of envelopes not in the spool (an interrupted write or delete)',
    );
  }

  // Outcomes of envelopes that were dropped whole, sent as one client report per project now and then.
  const outcomes = new OutcomeAggregator<Target>();
  const sendOutcomes = async () => {
    for (const { target, bytes } of outcomes.take()) {
      try {
        await delivery.accept({ ...target, headers: {}, body: bytes, acceptedAt: Date.now() });
      } catch (error) {
        app.log.warn({ err: error }, 'could not queue a client report');
      }
    }
  };
  const outcomeTimer = setInterval(() => void sendOutcomes(), config.upstream.clientReportIntervalMs);
  outcomeTimer.unref();

  readiness.checks.push(() => {
    try {
      accessSync(config.spool.dir, constants.W_OK);
      return undefined;
    } catch (error) {
      return `spool directory ${config.spool.dir} is not writable (${(error as Error).message})`;
    }
  });

  // The stages both routes hand their requests to: the tunnel's and the CSP reports'.
  const pipeline = createPipeline({
    upstreamUrl: config.upstreamUrl,
    limits: config.limits,
    metrics,
    rateLimits,
    quotas,
    delivery,
    outcomes,
  });
  await serveRoutes(door, {
    config,
    metrics,
    pipeline,
    shares,
    projects: live,
    linger,
    draining: () => readiness.draining,
    closing: () => closing,
  });

  // With METRICS_PORT, an admin port: clients holding every tunnel connection (MAX_CONNECTIONS) cannot make the pod
  // look dead.
  door.serveMetrics(metrics.registry, { logLevel: 'warn' });

  app.addHook('onClose', async () => {
    clearInterval(outcomeTimer);
    stopWatching();
    await sendOutcomes();
    await delivery.close(Math.min(config.server.shutdownGraceMs / 2, config.upstream.requestTimeoutMs));
    await forwarder.close();
    spool.close();
  });
  return { app, readiness, projects: live };
}
