// Local runs have no ingress: the browser posts envelopes to <TUNNEL_PATH> on this host (same origin, so ad blockers
// and CSP connect-src 'self' let it through) and this forwards them unchanged to the relay. In Kubernetes the
// ingress routes the path to the relay and this is off.
import type { FastifyInstance } from 'fastify';

export interface TunnelOptions {
  path: string;
  target: URL;
}

/** Envelopes larger than this are refused here; the relay enforces its own, finer limits. */
export const TUNNEL_BODY_LIMIT = 1024 * 1024;
const TUNNEL_TIMEOUT_MS = 10_000;
const FORWARDED_REQUEST_HEADERS = ['content-type', 'content-encoding', 'user-agent', 'origin', 'referer'];
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'retry-after', 'x-sentry-rate-limits'];

export async function tunnelProxy(app: FastifyInstance, options: TunnelOptions): Promise<void> {
  // A target with a path is used as it is (e.g. a capture server's /api/1/envelope/); a bare origin gets our path.
  const target = options.target.pathname === '/' ? new URL(options.path, options.target) : options.target;
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: TUNNEL_BODY_LIMIT }, (_req, body, done) =>
      done(null, body),
    );
    scope.post(options.path, async (req, reply) => {
      const headers: Record<string, string> = { 'x-forwarded-for': req.ip };
      for (const name of FORWARDED_REQUEST_HEADERS) {
        const value = req.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      const url = new URL(target);
      url.search = new URL(req.url, 'http://x').search;
      try {
        const upstream = await fetch(url, {
          method: 'POST',
          headers,
          body: new Uint8Array((req.body as Buffer | undefined) ?? Buffer.alloc(0)),
          signal: AbortSignal.timeout(TUNNEL_TIMEOUT_MS),
        });
        for (const name of FORWARDED_RESPONSE_HEADERS) {
          const value = upstream.headers.get(name);
          if (value !== null) reply.header(name, value);
        }
        return reply.code(upstream.status).send(Buffer.from(await upstream.arrayBuffer()));
      } catch (error) {
        req.log.warn({ err: error, target: target.href }, 'tunnel target unreachable');
        return reply.code(502).type('text/plain; charset=utf-8').send('telemetry relay unreachable');
      }
    });
  });
}
