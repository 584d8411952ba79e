// Local runs have no ingress: the browser posts envelopes to <TUNNEL_PATH> (CSP reports to <TUNNEL_PATH>/r) on this
// same-origin host and this streams them unchanged to the relay, which enforces its limits; in Kubernetes the ingress
// routes the path to the relay and this is off. @fastify/reply-from over undici: bodies piped, never buffered.
import { closeUnfinishedOnSend, type LingerLimits, requestClientAddress } from '@app/service-kit';
import replyFrom from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { tunnelDestination } from './endpoints.ts';
import { limitedBody, refuseOversized } from './tunnel-body.ts';

export interface TunnelOptions {
  path: string;
  target: URL;
  /** How an answer sent before the body all arrived lingers before the connection closes (the web's own). */
  linger: LingerLimits;
  /** TRUSTED_PROXY_HOPS: the relay is told the address service-kit's rule derives, not Fastify's looser request.ip. */
  trustedProxyHops: number;
}

/**
 * The relay's own defaults (MAX_BODY_BYTES, BODY_TIMEOUT_MS): a body the relay would take is never refused here.
 * A larger declared length is refused before connecting; a chunked body is cut here when it passes it.
 */
export const TUNNEL_BODY_LIMIT = 20 * 1024 * 1024;
const TUNNEL_TIMEOUT_MS = 30_000;
const FORWARDED_REQUEST_HEADERS = [
  'content-type',
  'content-encoding',
  'content-length',
  'transfer-encoding',
  'user-agent',
  'origin',
  'referer',
  // The relay's page token (issue 40): a project requiring one refuses envelopes without it.
  'x-page-token',
];
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'retry-after', 'x-sentry-rate-limits', 'x-request-id'];

const pick = <T extends object>(headers: T, names: readonly string[]) =>
  Object.fromEntries(
    names.flatMap((name) => (Object.hasOwn(headers, name) ? [[name, headers[name as keyof T]]] : [])),
  ) as T;

export async function tunnelProxy(app: FastifyInstance, options: TunnelOptions): Promise<void> {
  const target = tunnelDestination(options.path, options.target);
  app.register(async (scope) => {
    await scope.register(replyFrom, {
      base: target.origin,
      undici: { connections: 16, headersTimeout: TUNNEL_TIMEOUT_MS, bodyTimeout: TUNNEL_TIMEOUT_MS },
      disableRequestLogging: true,
    });
    // The request's stream is the body, piped to the relay through a stream of its own (tunnel-body.ts).
    const oversized = new WeakSet<object>();
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (req, payload, done) => {
      done(
        null,
        limitedBody(payload, TUNNEL_BODY_LIMIT, () => oversized.add(req.raw)),
      );
    });
    // An answer sent before the whole body arrived closes lingering (decisions 039, 041): the client reads it.
    scope.addHook('onSend', closeUnfinishedOnSend(options.linger));

    const forward = (path: string) => async (req: FastifyRequest, reply: FastifyReply) => {
      if (Number(req.headers['content-length']) > TUNNEL_BODY_LIMIT) return refuseOversized(reply, TUNNEL_BODY_LIMIT);
      // The request's query goes along (reply-from's default).
      return reply.from(path, {
        rewriteRequestHeaders: (request, headers) => ({
          ...pick(headers, FORWARDED_REQUEST_HEADERS),
          'x-forwarded-for': requestClientAddress(request.raw, options.trustedProxyHops),
        }),
        rewriteHeaders: (headers) => pick(headers, FORWARDED_RESPONSE_HEADERS),
        onError: (failed, { error }) => {
          // A chunked body cut at the limit: undici gave up sending it, the relay is not at fault.
          if (oversized.has(failed.request.raw)) {
            refuseOversized(failed, TUNNEL_BODY_LIMIT);
            return;
          }
          failed.request.log.warn({ err: error, target: target.href }, 'tunnel target unreachable');
          failed.code(502).type('text/plain; charset=utf-8').send('telemetry relay unreachable');
        },
      });
    };
    scope.post(options.path, forward(target.pathname));
    // CSP reports beside the tunnel path, for a relay (a target with a path of its own has no such sibling).
    if (target.pathname === options.path) scope.post(`${options.path}/r`, forward(`${options.path}/r`));
  });
}
