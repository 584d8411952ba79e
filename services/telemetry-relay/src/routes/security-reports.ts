// POST <TUNNEL_PATH>/security?dsn=…: browsers' CSP reports (report-uri's `application/csp-report`, report-to's
// batch), what Sentry's security endpoint takes but with the whole DSN, so the same authorizer decides. Each report
// becomes a `raw_security` item, as Relay makes them, and takes the tunnel's stages 3 and 5–8.
import { clientAddress, lingerLimits } from '@app/service-kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Part, planEnvelope, writeEnvelope } from '../envelope/build.ts';
import { exceedsDepth, RELAY_MAX_JSON_DEPTH } from '../envelope/json-depth.ts';
import { DEFAULT_MAX_ITEM_HEADER_BYTES, DEFAULT_MAX_TOTAL_HEADER_BYTES } from '../envelope/parse.ts';
import { environmentProblem, releaseProblem } from '../envelope/release-names.ts';
import { quote, RelayError } from '../errors.ts';
import type { ClientShares } from '../memory/budget.ts';
import { charge } from '../pipeline/body-sink.ts';
import { createEnvelopeStages, type StageOptions } from '../pipeline/index.ts';
import { readBody } from '../pipeline/read-body.ts';
import { admitOrigin, crossOrigin, isPreflight, preflightAnswer } from './cors.ts';
import { refuse } from './refuse.ts';

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

/**
 * Where reports are posted: beside the tunnel path, at `/r` with the query in neutral names (decision 048), or at
 * `/security` with Sentry's names, as web services wrote it before.
 */
const reportPaths = (tunnelPath: string): string[] =>
  ['/r', '/security'].map((suffix) => `${tunnelPath.replace(/\/+$/, '')}${suffix}`);

/**
 * The query in the names this route reads: `k` is the DSN in base64url, `e` the environment, `r` the release, so a
 * filter list finds neither a vendor's parameter names nor the intake's host name in the URL.
 */
function namedQuery(query: Record<string, unknown>): Record<string, unknown> {
  if (typeof query.k !== 'string') return query;
  return {
    dsn: Buffer.from(query.k, 'base64url').toString('utf8'),
    sentry_environment: query.e,
    sentry_release: query.r,
  };
}

const malformed = (detail: string) => new RelayError('malformed', detail);

/**
 * Most reports one batch may hold. Browsers queue reports and deliver them in small batches (the Reporting API
 * sends what piled up in about a minute); a page violating its policy hundreds of times a minute is one issue.
 */
export const MAX_REPORTS_PER_BATCH = 100;

/** The release and environment the query names, checked against Sentry's naming rules, as item header fields. */
function stamps(query: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, problemOf] of [
    ['sentry_release', releaseProblem],
    ['sentry_environment', environmentProblem],
  ] as const) {
    const value = query[name];
    if (value === undefined || value === '') continue;
    if (typeof value !== 'string') throw malformed(`the query gives "${name}" more than once`);
    const problem = problemOf(value);
    if (problem) throw malformed(`the query's "${name}" ${quote(value, 32)} ${problem}`);
    out[name] = value;
  }
  return out;
}

/** The reports of a body as parts: a single report as received, a Reporting API batch split per CSP violation. */
function reportParts(body: Buffer, contentType: string, itemHeaders: Record<string, string>): Part[] {
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
    return [{ header: { ...header, content_type: contentType }, payload: body }];
  }
  if (!Array.isArray(parsed)) throw malformed('an application/reports+json body is a JSON array of reports');
  const violations = parsed.filter((report) => (report as { type?: unknown } | null)?.type === 'csp-violation');
  if (violations.length === 0) throw malformed('the batch holds no report of type "csp-violation"');
  if (violations.length > MAX_REPORTS_PER_BATCH) {
    throw new RelayError(
      'too_large',
      `the batch has ${violations.length} CSP violation reports; at most ${MAX_REPORTS_PER_BATCH} are accepted`,
    );
  }
  return violations.map((report) => ({
    header: { ...header, content_type: 'application/json' },
    payload: JSON.stringify(report),
  }));
}

export async function securityReports(app: FastifyInstance, options: SecurityReportOptions): Promise<void> {
  const { config, metrics, shares } = options;
  const deliver = createEnvelopeStages(options);
  const bodyLimits = {
    maxBodyBytes: Math.min(config.limits.maxBodyBytes, config.limits.maxEventItemBytes),
    maxEnvelopeBytes: config.limits.maxEventItemBytes,
    timeoutMs: config.limits.bodyTimeoutMs,
    maxDecompressionRatio: config.limits.maxDecompressionRatio,
    maxHeaderBytes: config.limits.maxHeaderBytes,
  };
  const linger = lingerLimits(config.limits.refusedBodyLingerMs, bodyLimits.maxBodyBytes);
  // The envelope made from a batch is held to the tunnel's limits, as if a client had sent it.
  const buildLimits = {
    maxEnvelopeBytes: config.limits.maxEnvelopeBytes,
    maxItems: config.limits.maxItems,
    maxItemBytes: config.limits.maxEventItemBytes,
    maxItemHeaderBytes: config.limits.maxItemHeaderBytes ?? DEFAULT_MAX_ITEM_HEADER_BYTES,
    maxTotalHeaderBytes: config.limits.maxTotalHeaderBytes ?? DEFAULT_MAX_TOTAL_HEADER_BYTES,
  };
  let accepted = 0;

  const accept = async (req: FastifyRequest, reply: FastifyReply, ip: string): Promise<string> => {
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
    const authorized = options.projects.current().authorize({ dsn: query.dsn });
    const origin = crossOrigin(req.raw);
    if (origin !== undefined) admitOrigin(reply.raw, origin, authorized.settings);
    const itemHeaders = stamps(query);
    const hold = shares.hold(ip);
    try {
      const body = await readBody(req.raw, req.headers, bodyLimits, { hold });
      if (body.length === 0) throw new RelayError('empty', 'the body is empty; expected a security report');
      // Sized, checked and charged before it is written (build.ts).
      const plan = planEnvelope({ dsn: query.dsn }, reportParts(body, contentType, itemHeaders), buildLimits);
      charge(hold, plan.bytes);
      return await deliver(req.raw, reply.raw, ip, writeEnvelope(plan), authorized);
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
      const answer = await accept(req, reply, ip);
      // Sampled like the tunnel's, and without the URL: a report's query may be kilobytes (issue 24).
      if (accepted++ % config.logSampleEvery === 0) {
        req.log.info({ sampleOneIn: config.logSampleEvery }, 'security report accepted');
      }
      return reply.type('application/json').send(answer);
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
