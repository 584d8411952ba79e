// Everything the relay counts, in one Prometheus registry that /metrics serves.
import { type BuildInfo, registerBuildInfo } from '@app/service-kit';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { KNOWN_ITEM_TYPES } from '../envelope/categories.ts';
import { collectPending } from './count-cells.ts';
import { createLedger, type Ledger } from './ledger.ts';

export { type CountCell, counting, labelled } from './count-cells.ts';

/**
 * The relay's Prometheus metrics. Labels stay bounded: `project` is an allowlisted project id (or "loopback"),
 * `reason` and `outcome` are fixed sets, `type` is an item type the relay knows (others count as "unknown").
 */
export interface RelayMetrics {
  registry: Registry;
  received: Counter<never>;
  accepted: Counter<'project'>;
  rejected: Counter<'reason'>;
  forwarded: Counter<'project'>;
  itemsDropped: Counter<'reason' | 'type'>;
  upstreamRequests: Counter<'outcome' | 'status'>;
  upstreamDuration: Histogram<'outcome'>;
  spoolDropped: Counter<'reason'>;
  scrubbed: Counter<'rule' | 'field'>;
  /** Spooled envelopes replay may have in flight now (its pace, decision 034). */
  replayWindow: Gauge<never>;
  /** Connections read after a refusal sent before their body arrived, by how that ended (service-kit linger.ts). */
  lingers: Counter<'end'>;
  /** Every accepted item, forwarded, dropped by reason or pending, per project and category (ledger.ts). */
  ledger: Ledger;
}

export const typeLabel = (type: string) => (KNOWN_ITEM_TYPES.has(type) ? type : 'unknown');

export function createMetrics(
  gauges: {
    spoolEnvelopes: () => number;
    spoolBytes: () => number;
    spoolOldestAgeSeconds: () => number;
    rateLimitsActive: () => number;
    memoryQueue: () => number;
    memoryBudget: () => number;
    memoryHeld: () => number;
  },
  build: BuildInfo = { version: 'dev', revision: 'unknown' },
  /** The ledger's project label values (the allowlist's project ids); unset: any. */
  projects?: Iterable<string>,
): RelayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  const registers = [registry];
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  gauge('relay_spool_envelopes', 'Envelopes in the durable spool, waiting for upstream', gauges.spoolEnvelopes);
  gauge('relay_spool_bytes', 'Bytes of envelopes in the durable spool', gauges.spoolBytes);
  gauge(
    'relay_spool_oldest_age_seconds',
    'Age of the oldest envelope in the spool (0 when empty)',
    gauges.spoolOldestAgeSeconds,
  );
  gauge(
    'relay_memory_queue_envelopes',
    'Envelopes accepted in fast mode, held in memory until delivered',
    gauges.memoryQueue,
  );
  gauge(
    'relay_rate_limits_active',
    'Upstream rate limits (DSN × category) currently enforced',
    gauges.rateLimitsActive,
  );

  gauge(
    'relay_memory_budget_bytes',
    'Bytes the relay may hold in memory at once (bodies, queue, replay, sends): MEMORY_BUDGET_BYTES',
    gauges.memoryBudget,
  );
  gauge('relay_memory_held_bytes', 'Bytes of the memory budget held now', gauges.memoryHeld);
  registerBuildInfo(registry, 'relay_build_info', build);

  return {
    registry,
    ledger: createLedger(registers, projects),
    received: new Counter({
      name: 'relay_envelopes_received_total',
      help: 'Envelope requests received',
      registers,
      collect: collectPending,
    }),
    accepted: new Counter({
      name: 'relay_envelopes_accepted_total',
      help: 'Envelopes answered with 200',
      labelNames: ['project'],
      registers,
      collect: collectPending,
    }),
    rejected: new Counter({
      name: 'relay_envelopes_rejected_total',
      help: 'Envelopes refused, by reason',
      labelNames: ['reason'],
      registers,
    }),
    forwarded: new Counter({
      name: 'relay_envelopes_forwarded_total',
      help: 'Envelopes upstream answered with 2xx',
      labelNames: ['project'],
      registers,
      collect: collectPending,
    }),
    itemsDropped: new Counter({
      name: 'relay_items_dropped_total',
      help: 'Items removed from accepted envelopes, by reason (filtered rule id, rate_limited) and item type',
      labelNames: ['reason', 'type'],
      registers,
    }),
    upstreamRequests: new Counter({
      name: 'relay_upstream_requests_total',
      help: 'Requests to upstream, by outcome and HTTP status (or error code)',
      labelNames: ['outcome', 'status'],
      registers,
      collect: collectPending,
    }),
    upstreamDuration: new Histogram({
      name: 'relay_upstream_request_duration_seconds',
      help: 'Time from sending an envelope upstream to its answer',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    spoolDropped: new Counter({
      name: 'relay_envelopes_dropped_total',
      help: 'Accepted envelopes given up: expired (older than SPOOL_MAX_AGE), rejected or rate-limited by upstream, lost (body file missing), not_allowed (destination no longer configured)',
      labelNames: ['reason'],
      registers,
    }),
    scrubbed: new Counter({
      name: 'relay_scrubbed_total',
      help: "Values data scrubbing replaced or removed, by Relay's rule id and the kind of field (never the value)",
      labelNames: ['rule', 'field'],
      registers,
      collect: collectPending,
    }),
    replayWindow: new Gauge({
      name: 'relay_replay_window',
      help: 'Spooled envelopes replay may have in flight now: shrinks while the event loop runs late (REPLAY_MAX_LOOP_DELAY_MS)',
      registers,
    }),
    lingers: new Counter({
      name: 'relay_refusal_lingers_total',
      help: 'Connections still read after a refusal sent before their body arrived, by how that ended: client (it finished or closed), time (REFUSED_BODY_LINGER_MS), bytes (over twice MAX_BODY_BYTES)',
      labelNames: ['end'],
      registers,
    }),
  };
}
