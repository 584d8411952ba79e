import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { envelopeEndpoint } from '../envelope/dsn.ts';
import { parseEnvelope } from '../envelope/parse.ts';
import { serializeEnvelope } from '../envelope/serialize.ts';
import type { EnvelopeItem } from '../envelope/types.ts';
import { type RelayMetrics, typeLabel } from '../ops/metrics.ts';
import { createAuthorizer } from '../pipeline/authorize.ts';
import { readBody } from '../pipeline/bound.ts';
import { clientReportItem, type OutcomeAggregator } from '../pipeline/client-report.ts';
import { RelayError } from '../pipeline/errors.ts';
import { createFilter } from '../pipeline/filter.ts';
import { identityHeaders } from '../pipeline/identity.ts';
import type { RateLimits } from '../pipeline/rate-limit.ts';
import type { Delivery } from '../upstream/delivery.ts';

/**
 * POST <TUNNEL_PATH>: the pipeline, in the order the data flows —
 * bound → parse → authorize → rate-limit → filter → identity → deliver (forward, spool on failure).
 */

/** Where an envelope goes and whose it is (what the delivery stage needs besides the bytes). */
export interface Target {
  url: string;
  dsnKey: string;
  project: string;
}

export interface TunnelOptions {
  config: Config;
  metrics: RelayMetrics;
  rateLimits: RateLimits;
  delivery: Delivery;
  outcomes: OutcomeAggregator<Target>;
}

export async function tunnelRoutes(app: FastifyInstance, options: TunnelOptions): Promise<void> {
  const { config, metrics, rateLimits, delivery, outcomes } = options;
  const authorize = createAuthorizer(config);
  const filter = createFilter(config.ignoreRules);
  const parseLimits = config.limits;
  const bodyLimits = {
    maxBodyBytes: config.limits.maxBodyBytes,
    maxEnvelopeBytes: config.limits.maxEnvelopeBytes,
    timeoutMs: config.limits.bodyTimeoutMs,
  };

  // The body is an envelope of raw bytes whatever its content type (text/plain, application/x-sentry-envelope,
  // none): never a text or JSON parser, which would mangle binary attachments and replays.
  // The content type says nothing we use (SDKs send text/plain to avoid CORS preflights), so it is not even
  // parsed: a missing, empty or odd one must not turn an envelope away.
  app.addHook('onRequest', async (request) => {
    delete request.headers['content-type'];
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request, payload, done) => {
    readBody(payload, request.headers, bodyLimits).then(
      (body) => done(null, body),
      (error: Error) => done(error, undefined),
    );
  });

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    if (error instanceof RelayError) return reject(request, reply, error);
    const status = error.statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return reject(request, reply, new RelayError('malformed', `${error.code ?? 'bad request'}: ${error.message}`));
    }
    request.log.error({ err: error }, 'tunnel request failed');
    // No Retry-After on a 5xx: the SDK would stop sending everything for that long.
    return reply.code(500).send({ error: 'internal', detail: 'the relay failed to handle this envelope' });
  });

  const reject = (request: FastifyRequest, reply: FastifyReply, error: RelayError) => {
    metrics.rejected.inc({ reason: error.code });
    request.log.warn({ code: error.code, status: error.statusCode, detail: error.message }, 'envelope rejected');
    if (error.statusCode === 413 || error.statusCode === 408) reply.header('connection', 'close');
    return reply.code(error.statusCode).headers(error.headers).send({ error: error.code, detail: error.message });
  };

  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    metrics.received.inc();
    const body = request.body;
    if (!Buffer.isBuffer(body) || body.length === 0) {
      throw new RelayError('empty', 'the body is empty; expected a Sentry envelope');
    }
    const envelope = parseEnvelope(body, parseLimits);
    const { dsn, project } = authorize(envelope);
    const eventId = typeof envelope.header.event_id === 'string' ? envelope.header.event_id : undefined;

    const limited = rateLimits.apply(dsn.key, envelope.items);
    if (limited.items.length === 0 && envelope.items.length > 0) {
      for (const type of limited.droppedTypes)
        metrics.itemsDropped.inc({ reason: 'rate_limited', type: typeLabel(type) });
      throw new RelayError(
        'rate_limited',
        `project ${dsn.projectId} is rate-limited upstream`,
        rateLimits.headers(dsn.key),
      );
    }
    const filtered = filter({ ...envelope, items: limited.items });
    for (const type of limited.droppedTypes)
      metrics.itemsDropped.inc({ reason: 'rate_limited', type: typeLabel(type) });
    for (const { type, rule } of filtered.dropped) metrics.itemsDropped.inc({ reason: rule, type: typeLabel(type) });

    const discarded = [...limited.discarded, ...filtered.discarded];
    let items: EnvelopeItem[] = filtered.items;
    const target: Target = { url: config.upstreamUrl?.href ?? envelopeEndpoint(dsn), dsnKey: dsn.key, project };
    if (items.length === 0) {
      // Nothing left to send: the outcomes go with the next batch of client reports.
      if (discarded.length > 0) outcomes.add(envelope.header.dsn as string, target, discarded);
    } else {
      let bytes = envelope.bytes;
      if (discarded.length > 0) {
        items = [...items, clientReportItem(discarded)];
        bytes = serializeEnvelope(envelope, items);
      }
      await delivery.accept({
        ...target,
        headers: identityHeaders(request),
        body: bytes,
        acceptedAt: Date.now(),
      });
    }
    metrics.accepted.inc({ project });
    const limitHeaders = limited.droppedTypes.length > 0 ? rateLimits.headers(dsn.key) : undefined;
    if (limitHeaders) reply.headers(limitHeaders);
    return reply.type('application/json').send(eventId ? `{"id":"${eventId}"}` : '{}');
  };

  app.post(config.tunnelPath, handle);
}
