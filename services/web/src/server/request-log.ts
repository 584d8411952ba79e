// Request logs: one line per request (Fastify's own pair, "incoming request" + "request completed", is turned off),
// written for every response that is not a success and for one success in `sampleEvery`. Two info lines per request
// cost about a quarter of page-data throughput; failures keep their own error lines (with the digest) regardless.
import type { FastifyInstance } from 'fastify';

export function logRequests(app: FastifyInstance, options: { sampleEvery: number }): void {
  let successes = 0;
  app.addHook('onResponse', async (req, reply) => {
    const status = reply.statusCode;
    if (status < 400 && successes++ % options.sampleEvery !== 0) return;
    req.log.info(
      {
        req: { method: req.method, url: req.url },
        res: { statusCode: status },
        route: req.routePattern ?? req.routeOptions.url,
        responseTime: Math.round(reply.elapsedTime * 100) / 100,
        ...(status < 400 ? { sampleOneIn: options.sampleEvery } : {}),
      },
      'request completed',
    );
  });
}
