// The logging every service shares: JSON lines with a request id each, secrets redacted, ids clients cannot forge.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type FastifyRequest, type FastifyServerOptions, LogController } from 'fastify';
import { destination } from 'pino';
import type { ServerConfig } from './env.ts';

/** An incoming X-Request-Id is kept only when it looks like an id, so clients cannot inject text into log lines. */
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * The request's id: an incoming X-Request-Id only when a trusted proxy is in front (`trustedProxyHops` > 0: the
 * edge sets or overwrites it) and it looks like an id; else a fresh one. A client's own id would let it choose,
 * or collide with, the id under which other requests' log lines are found.
 */
export function requestIdFrom(req: IncomingMessage, trustedProxyHops = 0): string {
  const incoming = trustedProxyHops > 0 ? req.headers['x-request-id'] : undefined;
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

export interface LoggingOptions {
  /** TRUSTED_PROXY_HOPS: with a trusted proxy in front, its X-Request-Id is the request's id (requestIdFrom). */
  trustedProxyHops?: number;
  /** Where the JSON lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): unknown };
  /** Return true to leave a request's "incoming"/"completed" lines out (for sampling busy routes). */
  skipRequestLog?: (req: FastifyRequest) => boolean;
}

/**
 * Fastify options for JSON logs with a request id on every line (`requestId`), secrets redacted,
 * and the id taken from a trusted proxy's well-formed X-Request-Id header or made up.
 */
export function loggingOptions(
  service: string,
  config: Pick<ServerConfig, 'logLevel'>,
  options: LoggingOptions = {},
): Pick<FastifyServerOptions, 'logger' | 'genReqId' | 'logController'> {
  return {
    logger: {
      level: config.logLevel,
      base: { service },
      timestamp: () => `,"time":"${new Date().toISOString()}"`,
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
        censor: '[redacted]',
      },
      // Written synchronously: pino's default (asynchronous) stdout flushes at exit in a loop that retries a broken
      // pipe forever, so a process whose log reader had gone never exited on SIGTERM.
      stream: options.logStream ?? destination({ dest: 1, sync: true }),
    },
    genReqId: (req) => requestIdFrom(req, options.trustedProxyHops),
    logController: new LogController({
      requestIdLogLabel: 'requestId',
      disableRequestLogging: options.skipRequestLog ?? false,
    }),
  };
}
