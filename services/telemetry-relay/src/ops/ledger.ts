// The loss ledger: every item the relay answered 200 for, per project and data category, ends forwarded, dropped for
// a named reason, or still pending (spooled, or held in memory in fast mode). Per process lifetime, per label set:
//   accepted + pending_at_start = forwarded + dropped + pending
// (docs/decisions/052-loss-ledger-and-delivery-slo.md; test/ledger-faults.test.ts checks it under faults).
import { Counter, Gauge, type Registry } from 'prom-client';
import { type CountCell, collectPending, counting } from './count-cells.ts';
import { categoryOf, decodeTally } from './tally.ts';

/** Drops decided by a policy: what the delivery objective counts as done, not as lost. */
export const POLICY_DROP_REASONS = ['quota', 'spike_shield', 'upstream_ratelimited', 'not_allowed'] as const;
/** Drops the delivery objective counts against the relay: upstream refused what it sent, or it never got there. */
export const LOSS_DROP_REASONS = ['upstream_refused', 'expired', 'lost'] as const;
/** Every reason an accepted item may be dropped for; `filter:<id>` names an ignore rule or an inbound filter. */
export type DropReason = (typeof POLICY_DROP_REASONS)[number] | (typeof LOSS_DROP_REASONS)[number] | `filter:${string}`;
export const filterReason = (id: string): DropReason => `filter:${id}`;

/** Forwarded later than this after its acceptance, an item counts against the delivery objective (as late). */
export const DELIVERY_OBJECTIVE_SECONDS = 300;

/** The spool's items as it opened, by project and encoded tally (spool.ts's SpoolLedger). */
export interface OpenedRows {
  project: string;
  items: string;
  rows: number;
}

export interface Ledger {
  /** An envelope answered 200: its items as received (their tally text, tally.ts). */
  accepted(project: string, items: string): void;
  /** An item of an accepted envelope dropped before delivery. */
  droppedItem(project: string, reason: DropReason, type: string): void;
  /** What of an accepted envelope delivery took (the encoded tally it carries): pending until settled. */
  pending(project: string, items: string): void;
  /** A pending envelope forwarded (upstream answered 2xx), `acceptedAt` ms, or dropped for `reason`. */
  settled(project: string, items: string, outcome: 'forwarded' | DropReason, acceptedAt?: number): void;
  /** Spool: what it held as it opened, before anything was removed (pending at start). */
  opened(rows: readonly OpenedRows[]): void;
  /** Spool: a row it removed itself (expired, destination gone, body lost). */
  dropped(project: string, items: string, reason: DropReason): void;
}

/**
 * The ledger's metrics in `registry`. `projects`: the label values allowed (the allowlist's project ids,
 * "loopback"); any other (a row spooled under an older configuration) counts as "other".
 */
export function createLedger(registers: Registry[], projects?: Iterable<string>): Ledger {
  const known = projects ? new Set(projects) : undefined;
  const project = (id: string) => (known === undefined || known.has(id) ? id : 'other');
  const labelNames = ['project', 'category'] as const;
  const accepted = new Counter({
    name: 'relay_ledger_items_accepted_total',
    help: 'Items of envelopes answered 200, by project and data category',
    labelNames,
    registers,
    collect: collectPending,
  });
  const forwarded = new Counter({
    name: 'relay_ledger_items_forwarded_total',
    help: 'Accepted items upstream answered 2xx for',
    labelNames,
    registers,
    collect: collectPending,
  });
  const late = new Counter({
    name: 'relay_ledger_items_forwarded_late_total',
    help: `Accepted items forwarded more than ${DELIVERY_OBJECTIVE_SECONDS} s after they were accepted (also in forwarded)`,
    labelNames,
    registers,
  });
  const dropped = new Counter({
    name: 'relay_ledger_items_dropped_total',
    help: 'Accepted items dropped, by reason: filter:<ignore rule or inbound filter>, quota, spike_shield, upstream_ratelimited, not_allowed, upstream_refused, expired, lost',
    labelNames: [...labelNames, 'reason'],
    registers,
    collect: collectPending,
  });
  const pendingNow = new Map<string, number>();
  const pendingAtStart = new Map<string, number>();
  const gauge = (name: string, help: string, values: Map<string, number>) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      collect() {
        for (const [key, n] of values) {
          const [p = '', c = ''] = key.split('\u0000');
          this.set({ project: p, category: c }, n);
        }
      },
    });
  gauge(
    'relay_ledger_items_pending',
    'Accepted items neither forwarded nor dropped yet: in the spool, or held in memory (SPOOL_MODE=fast)',
    pendingNow,
  );
  gauge(
    'relay_ledger_items_pending_at_start',
    "Items in the spool when this process opened it (the previous process's pending)",
    pendingAtStart,
  );
  const acceptedCell = counting(accepted);
  const droppedCell = counting(dropped);
  const forwardedCell = counting(forwarded);
  /** One category of a tally under one project: its count and where it is counted. */
  interface Line {
    category: string;
    n: number;
    key: string;
    accepted: CountCell;
    forwarded: CountCell;
  }
  /** Lines by project, then tally text, so an envelope costs two lookups (bounded: projects × shapes seen). */
  const lines = new Map<string, Map<string, Line[]>>();
  const seen = new Set<string>();
  const linesOf = (p: string, items: string): Line[] => {
    let byText = lines.get(p);
    if (!byText) {
      byText = new Map();
      lines.set(p, byText);
    }
    let found = byText.get(items);
    if (found) return found;
    found = [...decodeTally(items)].map(([category, n]) => {
      const key = `${p}\u0000${category}`;
      if (!seen.has(key)) {
        // A new label set's loss series start at 0, so the objective's ratios exist before the first loss.
        seen.add(key);
        for (const reason of LOSS_DROP_REASONS) dropped.inc({ project: p, category, reason }, 0);
        late.inc({ project: p, category }, 0);
        forwarded.inc({ project: p, category }, 0);
      }
      return { category, n, key, accepted: acceptedCell(p, category), forwarded: forwardedCell(p, category) };
    });
    if (byText.size >= 1024) byText.clear();
    byText.set(items, found);
    return found;
  };
  const add = (map: Map<string, number>, key: string, n: number) => map.set(key, (map.get(key) ?? 0) + n);
  const settle = (id: string, items: string, outcome: 'forwarded' | DropReason, acceptedAt?: number) => {
    const p = project(id);
    const isLate = acceptedAt !== undefined && Date.now() - acceptedAt > DELIVERY_OBJECTIVE_SECONDS * 1000;
    for (const line of linesOf(p, items)) {
      add(pendingNow, line.key, -line.n);
      if (outcome !== 'forwarded') droppedCell(p, line.category, outcome).inc(line.n);
      else {
        line.forwarded.inc(line.n);
        if (isLate) late.inc({ project: p, category: line.category }, line.n);
      }
    }
  };
  return {
    accepted(id, items) {
      for (const line of linesOf(project(id), items)) line.accepted.inc(line.n);
    },
    droppedItem(id, reason, type) {
      droppedCell(project(id), categoryOf(type), reason).inc();
    },
    pending(id, items) {
      for (const line of linesOf(project(id), items)) add(pendingNow, line.key, line.n);
    },
    settled: settle,
    opened(rows) {
      for (const row of rows) {
        for (const line of linesOf(project(row.project), row.items)) {
          add(pendingAtStart, line.key, line.n * row.rows);
          add(pendingNow, line.key, line.n * row.rows);
        }
      }
    },
    dropped: (id, items, reason) => settle(id, items, reason),
  };
}
