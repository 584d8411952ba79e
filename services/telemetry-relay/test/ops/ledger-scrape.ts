// The loss ledger's series read from a /metrics page (Prometheus text format), by project and category, for tests.

const SERIES = {
  accepted: 'relay_ledger_items_accepted_total',
  forwarded: 'relay_ledger_items_forwarded_total',
  dropped: 'relay_ledger_items_dropped_total',
  pending: 'relay_ledger_items_pending',
  atStart: 'relay_ledger_items_pending_at_start',
} as const;
type Column = keyof typeof SERIES;

interface Sample {
  column: Column;
  labels: Record<string, string>;
  value: number;
}

export interface LedgerScrape {
  /** Every "project/category" with a series. */
  keys(): string[];
  /** One label set's columns, dropped summed over its reasons. */
  of(key: string): Record<Column, number>;
  /** A column summed over the series whose labels match `where`. */
  sum(column: Column, where?: Record<string, string>): number;
  total(column: Column): number;
}

const LINE = /^([a-z_]+)\{([^}]*)\} (\S+)$/;
const LABEL = /([a-z_]+)="((?:[^"\\]|\\.)*)"/g;

export function readLedger(text: string): LedgerScrape {
  const byName = new Map<string, Column>(Object.entries(SERIES).map(([column, name]) => [name, column as Column]));
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = LINE.exec(line);
    const column = match ? byName.get(match[1] ?? '') : undefined;
    if (!match || !column) continue;
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(LABEL)].map(([, k, v]) => [k, v]));
    samples.push({ column, labels, value: Number(match[3]) });
  }
  const keyOf = (labels: Record<string, string>) => `${labels.project}/${labels.category}`;
  const sum = (column: Column, where: Record<string, string> = {}) =>
    samples
      .filter((s) => s.column === column && Object.entries(where).every(([k, v]) => s.labels[k] === v))
      .reduce((total, s) => total + s.value, 0);
  return {
    keys: () => [...new Set(samples.map((s) => keyOf(s.labels)))].sort(),
    of(key) {
      const [project = '', category = ''] = key.split('/');
      const where = { project, category };
      return {
        accepted: sum('accepted', where),
        forwarded: sum('forwarded', where),
        dropped: sum('dropped', where),
        pending: sum('pending', where),
        atStart: sum('atStart', where),
      };
    },
    sum,
    total: (column) => sum(column),
  };
}
