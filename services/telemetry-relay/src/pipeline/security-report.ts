// CSP reports as an envelope: browsers' reports (report-uri's `application/csp-report`, report-to's batch) each
// become a `raw_security` item, as Relay makes them, in an envelope held to the tunnel's limits (envelope/build.ts).

import { quote, RelayError } from '../core/errors.ts';
import { DEFAULT_MAX_ITEM_HEADER_BYTES, DEFAULT_MAX_TOTAL_HEADER_BYTES } from '../core/limits.ts';
import type { Hold } from '../core/memory/budget.ts';
import { type Part, planEnvelope, writeEnvelope } from '../envelope/build.ts';
import { exceedsDepth, RELAY_MAX_JSON_DEPTH } from '../envelope/json-depth.ts';
import type { ParseLimits } from '../envelope/parse.ts';
import { environmentProblem, releaseProblem } from '../envelope/release-names.ts';
import type { Envelope } from '../envelope/types.ts';
import { charge } from './body-sink.ts';

/** The content types Sentry's security endpoint accepts. */
export const REPORT_TYPES = [
  'application/csp-report',
  'application/json',
  'application/reports+json',
  'application/expect-ct-report',
  'application/expect-ct-report+json',
  'application/expect-staple-report',
];

/**
 * The query in the names this route reads: `k` is the DSN in base64url, `e` the environment, `r` the release, so a
 * filter list finds neither a vendor's parameter names nor the intake's host name in the URL.
 */
export function namedQuery(query: Record<string, unknown>): Record<string, unknown> {
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
export function stamps(query: Record<string, unknown>): Record<string, string> {
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

/** What a report's envelope is held to: the tunnel's limits, as if a client had sent it. */
export type ReportLimits = Pick<
  ParseLimits,
  'maxItems' | 'maxEventItemBytes' | 'maxItemHeaderBytes' | 'maxTotalHeaderBytes'
> & {
  maxEnvelopeBytes: number;
};

/** The body's reports as one envelope for `dsn`: sized, checked and charged to `hold` before it is written. */
export function reportEnvelope(
  body: Buffer,
  contentType: string,
  dsn: string,
  itemHeaders: Record<string, string>,
  limits: ReportLimits,
  hold: Hold,
): Envelope {
  const plan = planEnvelope({ dsn }, reportParts(body, contentType, itemHeaders), {
    maxEnvelopeBytes: limits.maxEnvelopeBytes,
    maxItems: limits.maxItems,
    maxItemBytes: limits.maxEventItemBytes,
    maxItemHeaderBytes: limits.maxItemHeaderBytes ?? DEFAULT_MAX_ITEM_HEADER_BYTES,
    maxTotalHeaderBytes: limits.maxTotalHeaderBytes ?? DEFAULT_MAX_TOTAL_HEADER_BYTES,
  });
  charge(hold, plan.bytes);
  return writeEnvelope(plan);
}
