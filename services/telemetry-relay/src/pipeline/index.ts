// Stages 5–9, what every route does with an authorized envelope: rate-limit → filter (ignore rules, then Relay's
// inbound filters) → spike shield and local quotas (pipeline/quota/) → scrub → identity → deliver. The
// tunnel (tunnel.ts) and CSP reports (security-reports.ts) differ only in how the envelope is read.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { envelopeEndpoint } from '../envelope/dsn.ts';
import { serializeEnvelope } from '../envelope/serialize.ts';
import type { Envelope, EnvelopeItem } from '../envelope/types.ts';
import { RelayError } from '../errors.ts';
import { counting, type RelayMetrics, typeLabel } from '../ops/metrics.ts';
import { quotaDropCounter } from '../ops/quota-metrics.ts';
import { tallyText } from '../ops/tally.ts';
import type { LiveProjects } from '../projects/live.ts';
import type { ProjectAuthorized } from '../projects/project.ts';
import type { RouteConfig } from '../routes/route-config.ts';
import type { Target } from '../types.ts';
import type { Delivery } from '../upstream/delivery.ts';
import { clientReportItem, type OutcomeAggregator } from './client-report.ts';
import { identityHeaders } from './identity.ts';
import { ItemTexts } from './item-text.ts';
import { accountAccepted } from './ledger-entries.ts';
import { mergeLimitHeaders } from './quota/quota.ts';
import type { QuotaStage } from './quota/stage.ts';
import type { RateLimits } from './rate-limit.ts';

export interface StageOptions {
  config: RouteConfig;
  metrics: RelayMetrics;
  rateLimits: RateLimits;
  /** Local quotas and the spike shield (pipeline/quota/), after the filters: what they drop spends no quota. */
  quotas: QuotaStage;
  delivery: Delivery;
  outcomes: OutcomeAggregator<Target>;
  /** The projects in force; a request reads them once, at its start (projects/live.ts). */
  projects: LiveProjects;
}

/** The answer's body, once the envelope is safe: at once in fast mode, after the spool's commit in durable mode. */
export type EnvelopeStages = (
  req: IncomingMessage,
  res: ServerResponse,
  ip: string,
  envelope: Envelope,
  authorized: ProjectAuthorized,
) => string | Promise<string>;

export function createEnvelopeStages(options: StageOptions): EnvelopeStages {
  const { config, metrics, rateLimits, quotas, delivery, outcomes } = options;
  const quotaDropped = quotaDropCounter(metrics.registry);
  const scrubbed = counting(metrics.scrubbed);
  const accepted = counting(metrics.accepted);
  const account = accountAccepted(metrics.ledger);
  /** Where each authorized DSN's envelopes go, built once (the authorizer caches its decisions, so these too). */
  const targets = new WeakMap<ProjectAuthorized, Target>();
  const targetOf = (authorized: ProjectAuthorized): Target => {
    let target = targets.get(authorized);
    if (!target) {
      const { dsn, project } = authorized;
      target = { url: config.upstreamUrl?.href ?? envelopeEndpoint(dsn), dsnKey: dsn.key, project };
      targets.set(authorized, target);
    }
    return target;
  };
  return (
    req: IncomingMessage,
    res: ServerResponse,
    ip: string,
    envelope: Envelope,
    authorized: ProjectAuthorized,
  ): string | Promise<string> => {
    const { dsn, project } = authorized;
    // The project's stages as they were when the envelope arrived, compiled once per load (projects/project.ts).
    const { filter, inboundFilter, scrub, settings } = authorized.settings;
    const eventId = typeof envelope.header.event_id === 'string' ? envelope.header.event_id : undefined;

    const limited = rateLimits.apply(dsn.key, envelope.items);
    for (const type of limited.droppedTypes)
      metrics.itemsDropped.inc({ reason: 'rate_limited', type: typeLabel(type) });
    if (limited.items.length === 0 && envelope.items.length > 0) {
      throw new RelayError(
        'rate_limited',
        `project ${dsn.projectId} is rate-limited upstream`,
        rateLimits.headers(dsn.key),
      );
    }
    const texts = new ItemTexts(); // one latin1 decode and one byte scan per item for the three stages
    const filtered = filter(limited.items === envelope.items ? envelope : { ...envelope, items: limited.items }, texts);
    for (const { type, rule } of filtered.dropped) metrics.itemsDropped.inc({ reason: rule, type: typeLabel(type) });
    const inbound = inboundFilter(filtered.items, texts);
    for (const { type, reason } of inbound.dropped) metrics.itemsDropped.inc({ reason, type: typeLabel(type) });
    const quota = quotas.apply(authorized.settings.quotas, dsn.publicKey, project, ip, inbound.items);
    for (const { type, category, reason } of quota.dropped) {
      metrics.itemsDropped.inc({ reason, type: typeLabel(type) });
      quotaDropped.inc({ project, category, reason });
    }

    const discarded =
      limited.discarded.length === 0 && inbound.discarded.length === 0 && quota.discarded.length === 0
        ? filtered.discarded
        : [...limited.discarded, ...filtered.discarded, ...inbound.discarded, ...quota.discarded];
    const target = targetOf(authorized);
    if (quota.items.length === 0 && quota.headers['x-sentry-rate-limits'] !== undefined) {
      // Every item left was over a quota: 429 as Sentry answers, the drops reported with the next client reports.
      outcomes.add(dsn.key, target, discarded);
      throw new RelayError(
        'quota_exceeded',
        `project ${dsn.projectId} is over a local quota`,
        mergeLimitHeaders(rateLimits.headers(dsn.key), quota.headers),
      );
    }
    let items: EnvelopeItem[] = quota.items;
    const kept = items;
    if (scrub && items.length > 0) {
      const result = scrub(items, envelope.bytes.length, texts);
      items = result.items;
      for (const { rule, field } of result.hits) scrubbed(rule, field).inc();
    }
    let safe: Promise<void> | undefined;
    // The ledger's tally of what delivery takes: the envelope's items, not the client report the relay adds.
    const received = tallyText(envelope.items);
    const delivered = items.length === 0 ? undefined : items === envelope.items ? received : tallyText(items);
    if (items.length === 0) {
      // Nothing left to send: the outcomes go with the next batch of client reports.
      if (discarded.length > 0) outcomes.add(dsn.key, target, discarded);
    } else {
      let bytes = envelope.bytes;
      if (discarded.length > 0) items = [...items, clientReportItem(discarded)];
      if (items !== kept || discarded.length > 0) bytes = serializeEnvelope(envelope, items);
      safe = delivery.accept({
        ...target,
        headers: identityHeaders(ip, req.headers, !settings.scrub.scrubIpAddresses),
        body: bytes,
        acceptedAt: Date.now(),
        client: ip,
        items: delivered,
      });
    }
    const answer = () => {
      accepted(project).inc();
      account(project, received, limited.droppedTypes, filtered.dropped, inbound.dropped, quota.dropped, delivered);
      const headers = limited.droppedTypes.length > 0 ? rateLimits.headers(dsn.key) : {};
      if (quota.headers['x-sentry-rate-limits'] !== undefined) mergeLimitHeaders(headers, quota.headers);
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      return eventId ? `{"id":"${eventId}"}` : '{}';
    };
    // Fast mode holds the envelope in memory already: answered in this turn, without a promise.
    return safe === undefined ? answer() : safe.then(answer);
  };
}
