// POST <TUNNEL_PATH>/security?dsn=…: browsers' CSP reports (report-uri's `application/csp-report`, report-to's
// batch), what Sentry's security endpoint takes but with the whole DSN, so the same authorizer decides. Each report
// becomes a `raw_security` item (pipeline/security-report.ts) and takes the tunnel's stages after its header line's.
import { lingerLimits, requestClientAddress } from '@app/service-kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { quote, RelayError } from '../core/errors.ts';
import type { ClientShares } from '../core/memory/budget.ts';
import {
  type Answer,
  type Arrival,
  namedQuery,
  REPORT_TYPES,
  readBody,
  reportEnvelope,
  stamps,
} from '../pipeline/index.ts';
import { allowOrigin, crossOrigin, isPreflight, preflightAnswer } from './cors.ts';
import { refuse } from './refuse.ts';
import type { RouteOptions } from './route-config.ts';

export interface SecurityReportOptions extends RouteOptions {
  shares: ClientShares;
}

/**
 * Where reports are posted: beside the tunnel path, at `/r` with the query in neutral names (decision 048), or at
 * `/security` with Sentry's names, as web services wrote it before.
 */
const reportPaths = (tunnelPath: string): string[] =>
  ['/r', '/security'].map((suffix) => `${tunnelPath.replace(/\/+$/, '')}${suffix}`);

export async function securityReports(app: FastifyInstance, options: SecurityReportOptions): Promise<void> {
  const { config, metrics, shares } = options;
  const { pipeline } = options;
  const bodyLimits = {
    maxBodyBytes: Math.min(config.limits.maxBodyBytes, config.limits.maxEventItemBytes),
    maxEnvelopeBytes: config.limits.maxEventItemBytes,
    timeoutMs: config.limits.bodyTimeoutMs,
    maxDecompressionRatio: config.limits.maxDecompressionRatio,
    maxHeaderBytes: config.limits.maxHeaderBytes,
  };
  const linger = lingerLimits(config.limits.refusedBodyLingerMs, bodyLimits.maxBodyBytes);
  let accepted = 0;

  const accept = async (req: FastifyRequest, reply: FastifyReply, ip: string): Promise<Answer> => {
    const query = namedQuery(req.query as Record<string, unknown>);
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!REPORT_TYPES.includes(contentType)) {
      throw new RelayError(
        'unsupported_type',
        `Content-Type ${quote(contentType)} is not a security report (send one of ${REPORT_TYPES.join(', ')})`,
      );
    }
    if (typeof query.dsn !== 'string' || query.dsn === '') {
      throw new RelayError('missing_dsn', 'the query has no "dsn" (the DSN the reports are for)');
    }
    const origin = crossOrigin(req.raw);
    const arrival: Arrival = {
      projects: options.projects.current(),
      origin,
      pageToken: () => undefined,
      header: { dsn: query.dsn },
      authorized: undefined,
    };
    const authorized = pipeline.admitQuery(arrival);
    if (origin !== undefined && authorized.settings.origins !== undefined) allowOrigin(reply.raw, origin);
    const itemHeaders = stamps(query);
    const hold = shares.hold(ip);
    try {
      const body = await readBody(req.raw, req.headers, bodyLimits, { hold });
      if (body.length === 0) throw new RelayError('empty', 'the body is empty; expected a security report');
      const envelope = reportEnvelope(body, contentType, query.dsn, itemHeaders, config.limits, hold);
      return await pipeline.deliver(envelope, authorized, { address: ip, headers: req.headers });
    } finally {
      hold.release();
    }
  };

  // The body is read in the handler, within the limits and the client's share of the memory budget.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    metrics.received.inc();
    const ip = requestClientAddress(req.raw, config.trustedProxyHops);
    try {
      const answer = await accept(req, reply, ip);
      // Sampled like the tunnel's, and without the URL: a report's query may be kilobytes (issue 24).
      if (accepted++ % config.logSampleEvery === 0) {
        req.log.info({ sampleOneIn: config.logSampleEvery }, 'security report accepted');
      }
      if (answer.headers) reply.headers(answer.headers);
      return reply.type('application/json').send(answer.body);
    } catch (error) {
      if (!(error instanceof RelayError)) throw error;
      const { status, headers, body } = refuse(error, req.raw, {
        metrics,
        log: req.log,
        message: 'security report rejected',
        linger,
      });
      return reply.code(status).headers(headers).type('application/json').send(body);
    }
  };
  // A report-to endpoint on another host is asked first: the query names the DSN, so its project answers.
  const preflight = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!isPreflight(req.raw))
      return reply
        .code(405)
        .header('allow', 'POST')
        .send({ error: 'method_not_allowed', detail: 'send reports with POST' });
    const origin = req.headers.origin as string;
    const answer = preflightAnswer(origin, projectAllows(req.query as Record<string, unknown>, origin));
    if (answer.status !== 204) metrics.rejected.inc({ reason: 'origin_not_allowed' });
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  };
  const projectAllows = (query: Record<string, unknown>, origin: string): boolean => {
    const projects = options.projects.current();
    const { dsn } = namedQuery(query);
    if (typeof dsn !== 'string') return projects.anyAllowsOrigin(origin);
    try {
      return projects.authorize({ dsn }).settings.origins?.has(origin) ?? false;
    } catch {
      return false; // a DSN not allowed here: the POST would be refused anyway
    }
  };
  for (const path of config.tunnelPaths.flatMap(reportPaths)) {
    for (const route of [path, `${path}/`]) {
      app.post(route, handler);
      app.options(route, preflight);
    }
  }
}
