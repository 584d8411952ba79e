// Client reports for what the relay dropped, so Sentry's stats count the events that never arrived.

import type { Discarded } from '../core/types.ts';
import { createItem } from '../envelope/serialize.ts';
import type { EnvelopeItem } from '../envelope/types.ts';

/**
 * A `client_report` item telling Sentry what the relay discarded, so the project's stats stay true
 * (develop-docs "Client Reports": `discarded_events` of `{reason, category, quantity}`). `discarded_events` is what
 * every upstream accepts from any client; `filtered_events` is reserved for registered Relays.
 */
export function clientReportItem(discarded: readonly Discarded[], now = Date.now()): EnvelopeItem {
  const payload = { timestamp: Math.floor(now / 1000), discarded_events: discarded };
  return createItem({ type: 'client_report' }, Buffer.from(JSON.stringify(payload)));
}

/** Most destinations whose outcomes wait at once (allowed DSNs are few; loopback mode is for development). */
const MAX_DESTINATIONS = 1000;

/**
 * Outcomes of envelopes that had nothing left to forward, summed per destination and sent now and then as one
 * small envelope, instead of one request per dropped event. Keyed by the authorized DSN (its canonical form), not
 * the text a client sent, so the map holds one entry per allowed destination.
 */
export class OutcomeAggregator<Target> {
  readonly #pending = new Map<string, { dsn: string; target: Target; counts: Map<string, Discarded> }>();

  /** `dsn` is the authorized DSN's canonical text (its key); `target` is where the report goes (kept as given). */
  add(dsn: string, target: Target, discarded: readonly Discarded[]): void {
    let entry = this.#pending.get(dsn);
    if (!entry) {
      if (this.#pending.size >= MAX_DESTINATIONS) return;
      entry = { dsn, target, counts: new Map() };
      this.#pending.set(dsn, entry);
    }
    for (const outcome of discarded) {
      const key = `${outcome.reason}\u0000${outcome.category}`;
      const sum = entry.counts.get(key);
      if (sum) sum.quantity += outcome.quantity;
      else entry.counts.set(key, { ...outcome });
    }
  }

  /** Envelopes (header with the DSN + one client_report item) for everything added since the last call. */
  take(now = Date.now()): Array<{ target: Target; bytes: Buffer }> {
    const out: Array<{ target: Target; bytes: Buffer }> = [];
    for (const { dsn, target, counts } of this.#pending.values()) {
      const item = clientReportItem([...counts.values()], now);
      const header = Buffer.from(JSON.stringify({ dsn, sent_at: new Date(now).toISOString() }));
      out.push({
        target,
        bytes: Buffer.concat([header, Buffer.from('\n'), item.headerBytes, Buffer.from('\n'), item.payload]),
      });
    }
    this.#pending.clear();
    return out;
  }
}
