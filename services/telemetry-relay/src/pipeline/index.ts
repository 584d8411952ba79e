// The relay's pipeline, its stages in the order they run; each is a module of stages/ with the same shape (stage.ts).
// Routes read the request and write the answer; everything between is here. Delivery comes in through `Delivery`.
import type { IncomingHttpHeaders } from 'node:http';
import type { Target } from '../core/types.ts';
import { envelopeEndpoint } from '../envelope/dsn.ts';
import type { ParseLimits } from '../envelope/parse.ts';
import type { Envelope, EnvelopeHeader } from '../envelope/types.ts';
import { counting, type RelayMetrics, typeLabel } from '../ops/metrics.ts';
import { quotaDropCounter } from '../ops/quota-metrics.ts';
import { tallyText } from '../ops/tally.ts';
import type { OutcomeAggregator } from './client-report.ts';
import type { Arrival, AuthorizedProject, Flight } from './flight.ts';
import { ItemTexts } from './item-text.ts';
import { accountAccepted } from './ledger-entries.ts';
import { mergeLimitHeaders } from './quota/quota.ts';
import type { QuotaStage } from './quota/stage.ts';
import type { RateLimits } from './rate-limit.ts';
import { continued, refusalError, type Stage } from './stage.ts';
import { authorizeStage } from './stages/authorize.ts';
import { filterStage } from './stages/filter.ts';
import { identityStage } from './stages/identity.ts';
import { inboundFilterStage } from './stages/inbound-filters.ts';
import { originStage } from './stages/origin.ts';
import { packStage } from './stages/pack.ts';
import { pageTokenStage } from './stages/page-token.ts';
import { parseHeaderStage, parseItemsStage } from './stages/parse.ts';
import { quotaStage } from './stages/quota.ts';
import { rateLimitStage } from './stages/rate-limit.ts';
import { scrubStage } from './stages/scrub.ts';

export type { Target } from '../core/types.ts';
export type { Envelope, EnvelopeHeader } from '../envelope/types.ts';
export { OutcomeAggregator } from './client-report.ts';
export type { Arrival, AuthorizedProject, LiveProjectSet, ProjectStages, Projects } from './flight.ts';
export { createQuotaStage, pageTokenOf } from './quota/stage.ts';
export { RateLimits } from './rate-limit.ts';
export { type BodyLimits, readBody } from './read-body.ts';
export { namedQuery, REPORT_TYPES, reportEnvelope, stamps } from './security-report.ts';
export { originRefusal } from './stages/origin.ts';

/** What the pipeline hands on: where it goes, the bytes and headers, and the ledger's tally of its items. */
export interface Outgoing extends Target {
  headers: Record<string, string>;
  body: Buffer;
  acceptedAt: number;
  /** The sender's address (its spool share). */
  client?: string | undefined;
  items?: string | undefined;
}

/** The last step, passed in (upstream/delivery.ts): settled at once (fast mode) or once the spool has committed. */
export interface Delivery {
  /** Throws a RelayError when it cannot take the envelope (spool full, the client over its share, draining). */
  accept(outgoing: Outgoing): Promise<void> | undefined;
}

export interface PipelineOptions {
  /** Send every envelope here instead of the DSN's own Sentry (UPSTREAM_URL). */
  upstreamUrl: URL | undefined;
  limits: ParseLimits;
  metrics: RelayMetrics;
  rateLimits: RateLimits;
  quotas: QuotaStage;
  delivery: Delivery;
  outcomes: OutcomeAggregator<Target>;
}

/** A 200's body and the rate-limit headers that go with it. */
export interface Answer {
  body: string;
  headers: Record<string, string> | undefined;
}

/** Who sent an envelope: what the identity and quota stages read of the request. */
export interface Sender {
  address: string;
  headers: IncomingHttpHeaders;
}

export interface Pipeline {
  /** The tunnel's header line as it arrives: parse header, authorize, origin, page token. Throws a refusal. */
  admitHeader(line: Buffer, arrival: Arrival): { header: EnvelopeHeader; authorized: AuthorizedProject };
  /** A CSP report's DSN (from its query): authorize, origin. Throws a refusal. */
  admitQuery(arrival: Arrival): AuthorizedProject;
  /** The tunnel's body: parse items, then `deliver`. */
  process(
    body: Buffer,
    header: EnvelopeHeader,
    authorized: AuthorizedProject,
    sender: Sender,
  ): Answer | Promise<Answer>;
  /**
   * An authorized envelope: rate limits, ignore rules, inbound filters, quotas, scrub, pack, identity, then
   * delivery. An Answer at once when it is safe at once (fast mode: no promise per envelope), else its promise.
   */
  deliver(envelope: Envelope, authorized: AuthorizedProject, sender: Sender): Answer | Promise<Answer>;
}

export function createPipeline(options: PipelineOptions): Pipeline {
  const { metrics, rateLimits, quotas, delivery, outcomes } = options;
  const scrubbed = counting(metrics.scrubbed);
  const quotaDropped = quotaDropCounter(metrics.registry);
  const accepted = counting(metrics.accepted);
  const account = accountAccepted(metrics.ledger);

  // The list: the header line's stages, the body's, then the items'.
  const parseHeader = parseHeaderStage(options.limits);
  const headerStages: ReadonlyArray<Stage<Arrival>> = [authorizeStage, originStage, pageTokenStage(quotas)];
  const queryStages: ReadonlyArray<Stage<Arrival>> = [authorizeStage, originStage];
  const parseItems = parseItemsStage(options.limits);
  const itemStages: ReadonlyArray<Stage<Flight>> = [
    rateLimitStage(rateLimits),
    filterStage,
    inboundFilterStage,
    quotaStage(quotas, rateLimits, outcomes),
    scrubStage(({ rule, field }) => scrubbed(rule, field).inc()),
    packStage(outcomes),
    identityStage,
  ];

  const admit = (stages: ReadonlyArray<Stage<Arrival>>, arrival: Arrival): AuthorizedProject => {
    for (const stage of stages) continued(stage(arrival));
    if (arrival.authorized === undefined) throw new Error('the authorize stage left no authorization');
    return arrival.authorized;
  };

  /** Where each authorized DSN's envelopes go, built once (the authorizer caches its decisions, so these too). */
  const targets = new WeakMap<AuthorizedProject, Target>();
  const targetOf = (authorized: AuthorizedProject): Target => {
    let target = targets.get(authorized);
    if (!target) {
      const { dsn, project } = authorized;
      target = { url: options.upstreamUrl?.href ?? envelopeEndpoint(dsn), dsnKey: dsn.key, project };
      targets.set(authorized, target);
    }
    return target;
  };

  /** Counts what the stage dropped since `from`; the quota's drops also per project and category. */
  const countDrops = (flight: Flight, from: number) => {
    for (let i = from; i < flight.dropped.length; i++) {
      const { type, reason, category } = flight.dropped[i] as Flight['dropped'][number];
      metrics.itemsDropped.inc({ reason, type: typeLabel(type) });
      if (category !== undefined) quotaDropped.inc({ project: flight.authorized.project, category, reason });
    }
  };

  const answer = (flight: Flight): Answer => {
    const { dsn, project } = flight.authorized;
    accepted(project).inc();
    account(flight);
    let headers = flight.rateLimited ? rateLimits.headers(dsn.key) : undefined;
    if (flight.quotaHeaders['x-sentry-rate-limits'] !== undefined) {
      headers = mergeLimitHeaders(headers ?? {}, flight.quotaHeaders);
    }
    const eventId = flight.envelope.header.event_id;
    return { body: typeof eventId === 'string' ? `{"id":"${eventId}"}` : '{}', headers };
  };

  const deliver = (envelope: Envelope, authorized: AuthorizedProject, sender: Sender): Answer | Promise<Answer> => {
    const flight: Flight = {
      envelope,
      authorized,
      client: sender.address,
      requestHeaders: sender.headers,
      target: targetOf(authorized),
      texts: new ItemTexts(),
      items: envelope.items,
      discarded: [],
      dropped: [],
      rateLimited: false,
      quotaHeaders: {},
      rewritten: false,
      received: tallyText(envelope.items),
      body: envelope.bytes,
      forwardHeaders: {},
      delivered: undefined,
    };
    for (const stage of itemStages) {
      const before = flight.dropped.length;
      const outcome = stage(flight);
      countDrops(flight, before);
      if (outcome.kind === 'refuse') throw refusalError(outcome);
      if (outcome.kind === 'drop') return answer(flight);
    }
    const safe = delivery.accept({
      ...flight.target,
      headers: flight.forwardHeaders,
      body: flight.body,
      acceptedAt: Date.now(),
      client: flight.client,
      items: flight.delivered,
    });
    // Fast mode holds the envelope in memory already: answered in this turn, without a promise.
    return safe === undefined ? answer(flight) : safe.then(() => answer(flight));
  };

  return {
    admitHeader(line, arrival) {
      const header = continued(parseHeader(line));
      arrival.header = header;
      return { header, authorized: admit(headerStages, arrival) };
    },
    admitQuery: (arrival) => admit(queryStages, arrival),
    process: (body, header, authorized, sender) => deliver(continued(parseItems({ body, header })), authorized, sender),
    deliver,
  };
}
