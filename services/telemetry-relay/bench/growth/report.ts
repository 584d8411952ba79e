// The growth sweeps' output: a fixed-width table per sweep and a Mermaid xychart-beta block drawn from the same
// numbers, pasted as is into docs/benchmarks.md (GitHub renders it), so the plot never drifts from the bench.

export type Cell = string | number;

const format = (cell: Cell) =>
  typeof cell === 'string'
    ? cell
    : !Number.isFinite(cell)
      ? '–'
      : Math.abs(cell) >= 100
        ? cell.toFixed(0)
        : Math.abs(cell) >= 10
          ? cell.toFixed(1)
          : cell.toFixed(2);

/** A table with a left-aligned first column and right-aligned numbers. */
export function table(title: string, columns: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const text = rows.map((row) => row.map(format));
  const widths = columns.map((column, i) => Math.max(column.length, ...text.map((row) => row[i]?.length ?? 0)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  return [`\n${title}`, line(columns), ...text.map(line)].join('\n');
}

export interface Series {
  name: string;
  /** One value per x label; a missing point (NaN) is drawn as 0 and named in the title. */
  values: readonly number[];
}

/** xychart-beta has no legend: the series are named, in drawing order, in the title. */
export function xychart(title: string, xLabels: readonly string[], yLabel: string, series: readonly Series[]): string {
  const missing = series.filter((s) => s.values.some((v) => !Number.isFinite(v))).map((s) => s.name);
  const round = (v: number) => (Number.isFinite(v) ? Number(v.toPrecision(3)) : 0);
  return [
    '```mermaid',
    'xychart-beta',
    `  title "${title}: ${series.map((s) => s.name).join(' / ')}${missing.length > 0 ? ` (0 = not run: ${missing.join(', ')})` : ''}"`,
    `  x-axis [${xLabels.map((label) => `"${label}"`).join(', ')}]`,
    `  y-axis "${yLabel}"`,
    ...series.map((s) => `  line [${s.values.map(round).join(', ')}]`),
    '```',
  ].join('\n');
}

/** 1 KB, 64 KB, 1 MiB, 20 MiB: sizes as people say them (KiB below a MiB are written KB, as the issue does). */
export function sizeLabel(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${+(bytes / 1048576).toFixed(1)} MiB` : `${+(bytes / 1024).toFixed(1)} KB`;
}
