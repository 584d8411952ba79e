import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { type Readiness, readinessReport } from './health.ts';

export interface AdminPortOptions {
  /** METRICS_PORT (0: any free port). */
  port: number;
  host: string;
  registry: Registry;
  readiness: Readiness;
}

export interface AdminPort {
  /** The port listened on once the app is ready (the one asked for, or the one the system chose for 0). */
  port(): number | undefined;
}

/**
 * GET /metrics, /healthz and /readyz on a port of their own, served by plain node:http: the kubelet and Prometheus
 * reach it, the ingress does not. Nothing a client does on the main port (holding every connection, being shed)
 * stands between a probe and its answer but the event loop itself. Listens when `app` is ready, closes with it.
 */
export function serveAdminPort(app: FastifyInstance, options: AdminPortOptions): AdminPort {
  const { registry, readiness } = options;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const json = (status: number, body: object) =>
      res
        .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
        .end(JSON.stringify(body));
    const path = req.url?.split('?', 1)[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') json(405, { error: 'method_not_allowed' });
    else if (path === '/healthz') json(200, { status: 'ok' });
    else if (path === '/metrics') {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (err: Error) => {
          app.log.error({ err }, 'metrics collection failed');
          json(500, { error: 'metrics_failed' });
        },
      );
    } else if (path === '/readyz') {
      readinessReport(readiness).then(
        ({ statusCode, body }) => json(statusCode, body),
        () => json(500, { status: 'error' }),
      );
    } else json(404, { error: 'not_found', detail: 'the admin port serves /metrics, /healthz and /readyz' });
  });
  // A probe opens a connection per check; none of them may linger.
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 5_000;
  server.requestTimeout = 10_000;
  app.addHook('onReady', async () => {
    server.listen(options.port, options.host);
    await once(server, 'listening');
    app.log.info(
      { port: (server.address() as AddressInfo).port },
      'admin port listening (/metrics, /healthz, /readyz)',
    );
  });
  // Last: liveness keeps answering while the main port drains.
  app.addHook('onClose', async () => {
    server.close();
    server.closeAllConnections();
  });
  return { port: () => (server.listening ? (server.address() as AddressInfo).port : undefined) };
}
