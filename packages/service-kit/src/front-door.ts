// The one way a service is reached: a node:http server with its connection limits set once (Fastify's timeout
// options do not reach a server it did not create), ordered lanes that may answer before Fastify (a hot path, load
// shedding), then Fastify; /metrics on the main port or an admin port of its own (METRICS_PORT). Decision 020.
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { LogLevel } from 'fastify';
import type { Registry } from 'prom-client';
import { type AdminPort, serveAdminPort } from './admin-port.ts';
import type { ConnectionLimits, ServerConfig } from './env.ts';
import { createServiceApp, type ServiceApp, type ServiceAppOptions } from './service-app.ts';

/** A path ahead of Fastify: answers the request and returns true, or returns false to pass it on unanswered. */
export type Lane = (req: IncomingMessage, res: ServerResponse) => boolean;

// How often Node enforces headersTimeout and requestTimeout: its default, 30 s, would let a slow client stay 40 s.
const CONNECTIONS_CHECKING_INTERVAL_MS = 1_000;

export interface FrontDoorOptions extends ServiceAppOptions {
  connections: ConnectionLimits;
  /** METRICS_PORT: /metrics, /healthz and /readyz on a port of their own (serveAdminPort); undefined: /metrics here. */
  metricsPort: number | undefined;
  /** Wraps Fastify's listener, behind the lanes (the web's dev server puts Vite's middleware there). */
  wrapFastify?: (fastify: RequestListener) => RequestListener;
}

export interface FrontDoor extends ServiceApp {
  /** Adds a lane behind those added before. Only before the server listens: a lane is never bound late. */
  addLane(name: string, lane: Lane): void;
  /** The lanes' names in the order they run. */
  lanes(): string[];
  /** Serves `registry` as METRICS_PORT says: on the admin port (returned) or as GET /metrics on the main port. */
  serveMetrics(registry: Registry, options?: { logLevel?: LogLevel }): AdminPort | undefined;
}

/** createServiceApp (request ids, health, readiness, draining) on a server with the limits and lanes above. */
export async function createFrontDoor(
  service: string,
  config: ServerConfig,
  options: FrontDoorOptions,
): Promise<FrontDoor> {
  const { connections, metricsPort, wrapFastify, fastify, ...serviceOptions } = options;
  const lanes: Array<{ name: string; lane: Lane }> = [];
  let sealed = false;
  const { app, readiness } = await createServiceApp(service, config, {
    ...serviceOptions,
    fastify: {
      ...fastify,
      serverFactory: (fastifyListener) => {
        const next = wrapFastify ? wrapFastify(fastifyListener) : fastifyListener;
        const server = createServer(
          {
            headersTimeout: connections.headersTimeoutMs,
            requestTimeout: connections.requestTimeoutMs,
            keepAliveTimeout: connections.keepAliveTimeoutMs,
            connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
          },
          (req, res) => {
            for (let i = 0; i < lanes.length; i++) if ((lanes[i] as { lane: Lane }).lane(req, res)) return;
            next(req, res);
          },
        );
        // Connections beyond this are closed as they are accepted.
        server.maxConnections = connections.maxConnections;
        return server;
      },
    },
  });
  app.server.once('listening', () => {
    sealed = true;
    app.log.info({ lanes: lanes.map((entry) => entry.name) }, 'front door: lanes ahead of Fastify');
  });
  return {
    app,
    readiness,
    addLane(name, lane) {
      if (sealed) throw new Error(`lane ${name}: lanes are added before the server listens`);
      lanes.push({ name, lane });
    },
    lanes: () => lanes.map((entry) => entry.name),
    serveMetrics(registry, { logLevel } = {}) {
      if (metricsPort !== undefined)
        return serveAdminPort(app, { port: metricsPort, host: config.host, registry, readiness });
      app.get('/metrics', logLevel ? { logLevel } : {}, async (_req, reply) =>
        reply.type(registry.contentType).send(await registry.metrics()),
      );
      return undefined;
    },
  };
}
