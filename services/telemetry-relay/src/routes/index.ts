// The relay's HTTP side on the front door: the tunnel path as a lane ahead of Fastify, CSP reports, and how Fastify's
// own answers (404, a 5xx, a 503 while closing) end a connection whose body is still arriving.
import { closeUnfinishedOnSend, type FrontDoor, type LingerLimits } from '@app/service-kit';
import { quote } from '../core/errors.ts';
import type { ClientShares } from '../core/memory/budget.ts';
import { lingerUnread } from './refuse.ts';
import type { RouteOptions } from './route-config.ts';
import { securityReports } from './security-reports.ts';
import { answerServerErrors } from './server-errors.ts';
import { createTunnelHandler, isTunnelUrl } from './tunnel.ts';

export type { RouteConfig, RouteOptions } from './route-config.ts';

export interface ServeOptions extends RouteOptions {
  shares: ClientShares;
  linger: LingerLimits;
  /** Readiness is failing: answer, but close connections so clients move elsewhere. */
  draining: () => boolean;
  /** The server is closing: refuse new envelopes with 503. */
  closing: () => boolean;
}

export async function serveRoutes(door: FrontDoor, options: ServeOptions): Promise<void> {
  const { app } = door;
  const { config, metrics, linger } = options;
  const tunnel = createTunnelHandler({ ...options, log: app.log });
  door.addLane('tunnel', (req, res) => {
    if (!config.tunnelPaths.some((path) => isTunnelUrl(req.url, path))) return false;
    tunnel(req, res);
    return true;
  });

  // Fastify's own 404 echoes the whole URL in its body and log line.
  app.setNotFoundHandler((req, reply) =>
    reply
      .code(404)
      .send({ error: 'not_found', detail: `no route for ${req.method} ${quote(req.url.split('?')[0] ?? '', 64)}` }),
  );
  // A Fastify answer sent before its body arrived (a 404, the body parser's 413) ends the connection as a refusal does.
  app.addHook(
    'onSend',
    closeUnfinishedOnSend(linger, (end) => metrics.lingers.inc({ end })),
  );
  // While closing, Fastify answers 503 before any hook runs: a body still arriving is read and dropped the same way.
  door.addLane('closing', (req) => {
    if (options.closing()) lingerUnread(req, linger, metrics);
    return false;
  });
  // skipRequestLog turns Fastify's error lines off too: a route's 500 is logged and counted here.
  app.setErrorHandler(answerServerErrors(metrics));

  // CSP violation reports beside the tunnel path; few and small, so through Fastify (security-reports.ts).
  await app.register(securityReports, options);
}
