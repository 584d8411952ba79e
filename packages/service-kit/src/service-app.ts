// The Fastify instance every service starts from, so request ids, logs and health routes are the same in each.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { ServerConfig } from './env.ts';
import { answerFrameworkErrors, type RefusedBodyLinger } from './framework-errors.ts';
import { createReadiness, healthRoutes, type Readiness } from './health.ts';
import { type LoggingOptions, loggingOptions } from './logging.ts';

export interface ServiceApp {
  app: FastifyInstance;
  readiness: Readiness;
}

export type ServiceAppOptions = LoggingOptions & {
  fastify?: Omit<FastifyServerOptions, 'logger' | 'genReqId' | 'logController'>;
  /** /readyz here says ready or not, without the reasons (an admin port has them). */
  briefReadiness?: boolean;
  /** A router refusal (bad URL) sent before its body arrived closes lingering within these limits, else keeps alive. */
  refusedBodyLinger?: RefusedBodyLinger;
};

/**
 * A Fastify instance with what every service here shares: JSON logs with request ids, the id echoed back in
 * X-Request-Id, and /healthz + /readyz. The service registers its own routes on `app`.
 */
export async function createServiceApp(
  service: string,
  config: ServerConfig,
  options: ServiceAppOptions = {},
): Promise<ServiceApp> {
  const readiness = createReadiness();
  const app = Fastify({
    // The router's refusals skip every hook and quote the whole path: answered bounded (framework-errors.ts).
    frameworkErrors: answerFrameworkErrors(readiness, options.refusedBodyLinger),
    ...options.fastify,
    ...loggingOptions(service, config, options),
  });
  // Hooks that call back rather than async ones: no promise and microtask per request for a header.
  app.addHook('onRequest', function echoRequestId(req, reply, done) {
    reply.header('x-request-id', req.id);
    done();
  });
  // While draining, every response (also of requests that started before) closes its connection, so kept-alive
  // clients reconnect elsewhere and the listener can close once the work in flight is done.
  app.addHook('onSend', function closeWhileDraining(_req, reply, payload, done) {
    if (readiness.draining) reply.header('connection', 'close');
    done(null, payload);
  });
  await app.register(healthRoutes, { readiness, briefReadiness: options.briefReadiness ?? false });
  return { app, readiness };
}
