// Starting and stopping a service: listen, then on SIGTERM/SIGINT drain, close and exit within the grace period.
import { setTimeout as sleep } from 'node:timers/promises';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import type { ServerConfig } from './env.ts';
import type { Readiness } from './health.ts';

export interface RunningService {
  app: FastifyInstance;
  /** Starts the same shutdown a signal would. */
  shutdown(): void;
}

/**
 * Listens, then shuts down gracefully on SIGTERM/SIGINT: readiness fails first, after the drain delay the listener
 * closes and in-flight requests finish (Fastify answers new requests on kept-alive connections with 503), then the
 * service's own onClose hooks run. If that takes longer than the grace period the process exits with code 1.
 */
export async function runService(
  app: FastifyInstance,
  /**
   * reusePort: listen with SO_REUSEPORT, so more sockets can listen on the port (the web's http/acceptors.ts).
   * ownSignals: signals the service handles itself, not a shutdown (the relay's SIGHUP reloads its projects).
   */
  opts: {
    config: ServerConfig;
    readiness: Readiness;
    reusePort?: boolean;
    ownSignals?: ReadonlyArray<'SIGHUP' | 'SIGUSR2'>;
  },
): Promise<RunningService> {
  const { config, readiness } = opts;
  const log = app.log;

  const closer = closeWithGrace(
    {
      delay: config.shutdownDrainDelayMs + config.shutdownGraceMs,
      // close-with-grace shuts down on SIGHUP too, among others.
      ...(opts.ownSignals ? { skip: [...opts.ownSignals] } : {}),
      logger: { error: (msg: unknown, ...rest: unknown[]) => log.error({ detail: rest }, String(msg)) },
      onTimeout: (delay) => log.error({ delayMs: delay }, 'graceful shutdown timed out; exiting'),
    },
    async ({ signal, err, manual }) => {
      if (err) log.error({ err }, 'fatal error; shutting down');
      log.info({ signal, manual: manual ?? false }, 'shutting down: readiness now fails');
      readiness.draining = true;
      if (config.shutdownDrainDelayMs > 0) await sleep(config.shutdownDrainDelayMs);
      await app.close();
      log.info('shut down cleanly');
    },
  );
  app.addHook('onClose', async () => closer.uninstall());

  await app.listen({ port: config.port, host: config.host, ...(opts.reusePort ? { reusePort: true } : {}) });
  return { app, shutdown: () => closer.close() };
}
