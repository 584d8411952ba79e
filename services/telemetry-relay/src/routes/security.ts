import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { exceedsDepth, RELAY_MAX_JSON_DEPTH } from '../envelope/json-depth.ts';
import { createItem, serializeEnvelope } from '../envelope/serialize.ts';
import type { Envelope, EnvelopeItem } from '../envelope/types.ts';
import { RelayError } from '../errors.ts';
import type { ClientShares } from '../memory/budget.ts';
import { createAuthorizer } from '../pipeline/authorize.ts';
import { readBody } from '../pipeline/bound.ts';
import { clientAddress } from '../pipeline/identity.ts';
import { createEnvelopeStages, type StageOptions } from './envelope-stages.ts';
import { refuse } from './refuse.ts';

// POST <TUNNEL_PATH>/security?dsn=…: browsers' CSP reports (report-uri's `application/csp-report`, report-to's
// batch), what Sentry's security endpoint takes but with the whole DSN, so the same authorizer decides. Each report
// becomes a `raw_security` item, as Relay makes them, and takes the tunnel's stages 3 and 5–8.

/** The content types Sentry's security endpoint accepts. */
const REPORT_TYPES = [
  'application/csp-report',
  'application/json',
  'application/reports+json',
  'application/expect-ct-report',
  'application/expect-ct-report+json',
  'application/expect-staple-report',
];

export interface SecurityReportOptions extends StageOptions {
  shares: ClientShares;
}

/** Where reports are posted: beside the tunnel path. */
const securityPath = (tunnelPath: string): string => `${tunnelPath.replace(/\/+$/, '')}/security`;

const malformed = (detail: string) => new RelayError('malformed', detail);

/** The reports of a body as items: a single report as received, a Reporting API batch split per CSP violation. */
function reportItems(body: Buffer, contentType: string, itemHeaders: Record<string, string>, maxItems: number) {
  if (exceedsDepth(body, 0, body.length, RELAY_MAX_JSON_DEPTH)) {
    throw malformed(`the report nests deeper than ${RELAY_MAX_JSON_DEPTH} levels`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw malformed(`the report is not JSON (${(error as Error).message})`);
  }
  const header = { type: 'raw_security', ...itemHeaders };
  if (contentType !== 'application/reports+json') {
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw malformed('a security report is a JSON object such as {"csp-report": {…}}');
    }
    return [createItem({ ...header, content_type: contentType }, body)];
  }
  if (!Array.isArray(parsed)) throw malformed('an application/reports+json body is a JSON array of reports');
  const violations = parsed.filter((report) => (report as { type?: unknown } | null)?.type === 'csp-violation');
  if (violations.length === 0) throw malformed('the batch holds no report of type "csp-violation"');
  if (violations.length > maxItems) throw new RelayError('too_large', `the batch has more than ${maxItems} reports`);
  return violations.map((report) =>
    createItem({ ...header, content_type: 'application/json' }, Buffer.from(JSON.stringify(report))),
  );
}

export async function securityReports(app: FastifyInstance, options: SecurityReportOptions): Promise<void> {
  const { config, metrics, shares } = options;
  const authorize = createAuthorizer({ allowedDsns: config.allowedDsns, loopbackPorts: config.loopbackPorts });
  const deliver = createEnvelopeStages(options);
  const bodyLimits = {
    maxBodyBytes: Math.min(config.limits.maxBodyBytes, config.limits.maxEventItemBytes),
    maxEnvelopeBytes: config.limits.maxEventItemBytes,
    timeoutMs: config.limits.bodyTimeoutMs,
    maxDecompressionRatio: config.limits.maxDecompressionRatio,
    maxHeaderBytes: config.limits.maxHeaderBytes,
  };

  const accept = async (req: FastifyRequest, reply: FastifyReply, ip: string): Promise<string> => {
    const query = req.query as Record<string, unknown>;
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!REPORT_TYPES.includes(contentType)) {
      throw new RelayError(
        'unsupported_type',
        `Content-Type ${JSON.stringify(contentType)} is not a security report (send one of ${REPORT_TYPES.join(', ')})`,
      );
    }
    if (typeof query.dsn !== 'string' || query.dsn === '') {
      throw new RelayError('missing_dsn', 'the query has no "dsn" (the DSN the reports are for)');
    }
    const authorized = authorize({ dsn: query.dsn });
    const itemHeaders: Record<string, string> = {};
    for (const name of ['sentry_release', 'sentry_environment']) {
      if (typeof query[name] === 'string' && query[name] !== '') itemHeaders[name] = query[name];
    }
    const hold = shares.hold(ip);
    try {
      const body = await readBody(req.raw, req.headers, bodyLimits, { hold });
      if (body.length === 0) throw new RelayError('empty', 'the body is empty; expected a security report');
      const items: EnvelopeItem[] = reportItems(body, contentType, itemHeaders, config.limits.maxItems);
      const header = { dsn: query.dsn };
      const headerBytes = Buffer.from(JSON.stringify(header));
      const envelope: Envelope = { header, headerBytes, items, bytes: serializeEnvelope({ headerBytes }, items) };
      return await deliver(req.raw, reply.raw, ip, envelope, authorized);
    } finally {
      hold.release();
    }
  };

  // The body is read in the handler, within the limits and the client's share of the memory budget.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    metrics.received.inc();
    const ip = clientAddress(
      req.raw.socket.remoteAddress ?? '',
      req.headers['x-forwarded-for'],
      config.trustedProxyHops,
    );
    try {
      return reply.type('application/json').send(await accept(req, reply, ip));
    } catch (error) {
      if (!(error instanceof RelayError)) throw error;
      const { status, headers, body } = refuse(error, req.raw, {
        metrics,
        log: req.log,
        message: 'security report rejected',
      });
      return reply.code(status).headers(headers).type('application/json').send(body);
    }
  };
  const path = securityPath(config.tunnelPath);
  app.post(path, handler);
  app.post(`${path}/`, handler);
}
