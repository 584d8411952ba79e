// Liveness and readiness for every service: /healthz and /readyz, and draining on shutdown.
import type { FastifyInstance } from 'fastify';

/**
 * What /readyz reports. `draining` is set when shutdown starts so that load balancers stop routing here
 * before the listener closes; `checks` are the service's own conditions (a writable spool, say), each
 * returning a reason when it is not ready.
 */
export interface Readiness {
  draining: boolean;
  checks: Array<() => string | undefined | Promise<string | undefined>>;
}

export function createReadiness(): Readiness {
  return { draining: false, checks: [] };
}

/**
 * What GET /readyz answers: 200 when ready, else 503 with the reasons (also for servers that are not Fastify).
 * `brief`: the status alone, for a port anyone reaches (the reasons may tell heap and RSS figures).
 */
export async function readinessReport(
  readiness: Readiness,
  brief = false,
): Promise<{ statusCode: number; body: object }> {
  if (readiness.draining) return { statusCode: 503, body: { status: 'draining' } };
  const reasons = (await Promise.all(readiness.checks.map((check) => check()))).filter(
    (reason): reason is string => reason !== undefined,
  );
  if (reasons.length > 0)
    return { statusCode: 503, body: brief ? { status: 'not ready' } : { status: 'not ready', reasons } };
  return { statusCode: 200, body: { status: 'ready' } };
}

/** GET /healthz: the process is alive. GET /readyz: it should get traffic. */
export async function healthRoutes(
  app: FastifyInstance,
  opts: { readiness: Readiness; briefReadiness?: boolean },
): Promise<void> {
  const { readiness, briefReadiness = false } = opts;
  const logLevel = 'warn' as const; // probes every few seconds would drown the request log

  app.get('/healthz', { logLevel }, async () => ({ status: 'ok' }));

  app.get('/readyz', { logLevel }, async (_req, reply) => {
    const { statusCode, body } = await readinessReport(readiness, briefReadiness);
    return reply.code(statusCode).send(body);
  });
}
