// Counting on the hot path without prom-client's per-call work: cached labelled children, and count cells added to
// their counter only when it is collected (a scrape).
import type { Counter } from 'prom-client';

/**
 * A metric's labelled child by label values, cached: prom-client hashes the label object on every call otherwise,
 * which shows in the profile at thousands of envelopes a second. Label sets are bounded, so the cache is too.
 */
export function labelled<Child>(metric: { labels(...values: string[]): Child }): (...values: string[]) => Child {
  const cache = new Map<string, Child>();
  return (...values) => {
    const key = values.join('\u0000');
    let child = cache.get(key);
    if (!child) {
      child = metric.labels(...values);
      cache.set(key, child);
    }
    return child;
  };
}

/** A count kept in a plain number and added to its counter when the counter is collected (a scrape, or get()). */
export interface CountCell {
  inc(by?: number): void;
}

/** Cells not yet added to their counter, by counter (filled by `counting`, emptied by the counters' collect). */
const cellsOf = new WeakMap<object, PendingCell[]>();

class PendingCell implements CountCell {
  pending = 0;
  readonly child: { inc(value: number): void };
  constructor(child: { inc(value: number): void }) {
    this.child = child;
  }
  inc(by = 1): void {
    this.pending += by;
  }
}

/**
 * Per-envelope counting without prom-client's per-call work (a label hash, a label check and an object per inc(),
 * even through a cached child): a cell per label values, added to the counter when it is collected. Only for
 * counters whose collect() is `collectPending`, which does the adding.
 */
export function counting(metric: Counter<string>): (...values: string[]) => CountCell {
  const cache = new Map<string, PendingCell>();
  let cells = cellsOf.get(metric);
  if (!cells) {
    cells = [];
    cellsOf.set(metric, cells);
  }
  const list = cells;
  return (...values) => {
    const key = values.length === 1 ? (values[0] as string) : values.join('\u0000');
    let cell = cache.get(key);
    if (!cell) {
      cell = new PendingCell(values.length === 0 ? metric : metric.labels(...values));
      cache.set(key, cell);
      list.push(cell);
    }
    return cell;
  };
}

/** collect() of the counters `counting` serves: adds what their cells counted since the last collection. */
export function collectPending(this: Counter<string>): void {
  for (const cell of cellsOf.get(this) ?? []) {
    if (cell.pending === 0) continue;
    cell.child.inc(cell.pending);
    cell.pending = 0;
  }
}
