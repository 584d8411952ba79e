// What the services' growth benches print: Markdown tables and Mermaid `xychart-beta` blocks drawn from the same
// numbers, which docs/benchmarks.md embeds as printed (GitHub renders both), so a plot never drifts from its bench.
// Plain functions of their inputs; one format for the relay's and the web's sweeps.

/** A table cell: text as given, a number formatted by `cell`. */
export type Cell = string | number;

/** A number with `digits` decimals and spaces between thousands (as docs/benchmarks.md writes them). */
export function num(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return 'n/a';
  const [whole = '', fraction] = value.toFixed(digits).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** A number with as many decimals as its size warrants: 9 950, 35.5, 0.93; whole numbers stay whole. */
export function cell(value: Cell): string {
  if (typeof value === 'string') return value;
  const size = Math.abs(value);
  return num(value, Number.isInteger(value) || size >= 100 ? 0 : size >= 10 ? 1 : 2);
}

/** `value ÷ base` as "×1.23" (the growth of a figure against the first row of its sweep). */
export function times(value: number, base: number): string {
  return base > 0 && Number.isFinite(value) ? `×${(value / base).toFixed(2)}` : 'n/a';
}

/** 1 KB, 64 KB, 1 MiB, 20 MiB: sizes as people say them (KiB below a MiB are written KB, as issue 26 does). */
export function sizeLabel(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${+(bytes / 1048576).toFixed(1)} MiB` : `${+(bytes / 1024).toFixed(1)} KB`;
}

/** A Markdown table: the first column left-aligned, the rest right-aligned. */
export function table(head: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const line = (cells: readonly Cell[]) => `| ${cells.map(cell).join(' | ')} |`;
  const rule = `|${head.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`;
  return [line(head), rule, ...rows.map(line)].join('\n');
}

export interface Series {
  name: string;
  /** One value per x label; a missing point (NaN) is drawn as 0 and named in the title. */
  values: readonly number[];
}

/**
 * A Mermaid line chart, one line per series over the x labels, the y axis from 0 to a round top. xychart-beta draws
 * no legend, so the title names the series in drawing order.
 */
export function chart(
  title: string,
  xLabel: string,
  x: readonly Cell[],
  yLabel: string,
  series: readonly Series[],
): string {
  const all = series.flatMap((s) => s.values).filter(Number.isFinite);
  const missing = series.filter((s) => s.values.some((v) => !Number.isFinite(v))).map((s) => s.name);
  const notes = [
    ...(series.length > 1 ? [`${series.map((s) => s.name).join(', ')}, in that order`] : []),
    ...(missing.length > 0 ? [`0 = not run: ${missing.join(', ')}`] : []),
  ];
  const round = (v: number) => (Number.isFinite(v) ? Number(v.toPrecision(3)) : 0);
  return [
    '```mermaid',
    'xychart-beta',
    `  title "${title}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}"`,
    `  x-axis "${xLabel}" [${x.map((v) => `"${v}"`).join(', ')}]`,
    `  y-axis "${yLabel}" 0 --> ${niceCeiling(Math.max(0, ...all))}`,
    ...series.map((s) => `  line [${s.values.map(round).join(', ')}]`),
    '```',
  ].join('\n');
}

/** The next 1, 2 or 5 × 10^n at or above `value`: a readable top for an axis. */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((m) => m * power >= value) as number;
  return step * power;
}
