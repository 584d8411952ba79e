import { once } from 'node:events';
import { accessSync, constants } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServiceApp, type ServiceApp } from '@app/service-kit';
import type { Config } from './config.ts';
import { createMetrics } from './ops/metrics.ts';
import { OutcomeAggregator } from './pipeline/client-report.ts';
import { RateLimits } from './pipeline/rate-limit.ts';
import { createTunnelHandler, isTunnelUrl, type Target, type TunnelHandler } from './routes/tunnel.ts';
import { createDelivery } from './upstream/delivery.ts';
import { createForwarder } from './upstream/forward.ts';
import { openSpool } from './upstream/spool.ts';

/** Builds the service without listening, so tests can use inject() or a loopback port. */
export async function buildApp(config: Config): Promise<ServiceApp> {
  // The tunnel path is served ahead of Fastify by a plain node:http handler (routes/tunnel.ts says why); every
  // other route (health, readiness, metrics) goes through Fastify as in the other services.
  let tunnel: TunnelHandler | undefined;
  const { app, readiness } = await createServiceApp('telemetry-relay', config.server, {
    fastify: {
      serverFactory: (fastifyHandler) =>
        createServer((req: IncomingMessage, res: ServerResponse) => {
          if (tunnel && isTunnelUrl(req.url, config.tunnelPath)) tunnel(req, res);
          else fastifyHandler(req, res);
        }),
      // Backstop for the body timeout of the tunnel route (which answers 408 itself).
      requestTimeout: config.limits.bodyTimeoutMs + 5_000,
      return503OnClosing: true,
    },
  });
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  const spool = openSpool({ dir: config.spool.dir, sync: config.spool.sync });
  const rateLimits = new RateLimits();
  const forwarder = createForwarder({
    connectionsPerOrigin: Math.ceil(config.upstream.concurrency / config.upstream.pipelining),
    pipelining: config.upstream.pipelining,
    connectTimeoutMs: config.upstream.connectTimeoutMs,
    requestTimeoutMs: config.upstream.requestTimeoutMs,
  });
  let memoryQueue = () => 0;
  const metrics = createMetrics({
    spoolEnvelopes: () => spool.count,
    spoolBytes: () => spool.bytes,
    spoolOldestAgeSeconds: () => {
      const oldest = spool.count > 0 ? spool.oldestAcceptedAt() : undefined;
      return oldest === undefined ? 0 : (Date.now() - oldest) / 1000;
    },
    rateLimitsActive: () => rateLimits.activeCount(),
    memoryQueue: () => memoryQueue(),
  });
  const delivery = createDelivery({
    mode: config.spool.mode,
    spool,
    forwarder,
    rateLimits,
    metrics,
    log: app.log,
    maxSpoolEnvelopes: config.spool.maxEnvelopes,
    maxSpoolBytes: config.spool.maxBytes,
    maxAgeMs: config.spool.maxAgeMs,
    maxMemoryBytes: config.spool.maxMemoryBytes,
    concurrency: config.upstream.concurrency,
    retryBaseMs: config.upstream.retryBaseMs,
    retryMaxMs: config.upstream.retryMaxMs,
  });
  memoryQueue = () => delivery.memoryCount;
  const { lostRows, orphanFiles } = spool.recovered;
  if (lostRows > 0) {
    metrics.spoolDropped.inc({ reason: 'lost' }, lostRows);
    app.log.error({ lost: lostRows, dir: config.spool.dir }, 'spooled envelopes lost: their body files were missing');
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
      await delivery.accept({ ...target, headers: {}, body: bytes, acceptedAt: Date.now() }).catch((error: unknown) => {
        app.log.warn({ err: error }, 'could not queue a client report');
      });
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

  tunnel = createTunnelHandler({
    config,
    metrics,
    rateLimits,
    delivery,
    outcomes,
    log: app.log,
    draining: () => readiness.draining,
    closing: () => closing,
  });

  const serveMetrics = async () => ({ type: metrics.registry.contentType, text: await metrics.registry.metrics() });
  if (config.metricsPort === undefined) {
    app.get('/metrics', { logLevel: 'warn' }, async (_req, reply) => {
      const { type, text } = await serveMetrics();
      return reply.type(type).send(text);
    });
  } else {
    // A separate admin port: scrapers reach it, the ingress that exposes the tunnel does not.
    const metricsServer = createServer((req, res) => {
      if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
        return;
      }
      serveMetrics().then(
        ({ type, text }) => res.writeHead(200, { 'content-type': type }).end(text),
        () => res.writeHead(500).end(),
      );
    });
    const port = config.metricsPort;
    app.addHook('onReady', async () => {
      metricsServer.listen(port, config.server.host);
      await once(metricsServer, 'listening');
      const address = metricsServer.address();
      app.log.info({ port: typeof address === 'object' ? address?.port : port }, 'metrics listening');
    });
    app.addHook('onClose', async () => {
      metricsServer.close();
      metricsServer.closeAllConnections();
    });
  }

  app.addHook('onClose', async () => {
    clearInterval(outcomeTimer);
    await sendOutcomes();
    await delivery.close(Math.min(config.server.shutdownGraceMs / 2, config.upstream.requestTimeoutMs));
    await forwarder.close();
    spool.close();
  });
  return { app, readiness };
}
