// What the growth bench prints: Markdown tables with each row's growth against the first (the work's growth beside
// the cost's), and Mermaid `xychart-beta` blocks that docs/benchmarks.md embeds as they are. Plain functions.

export type Cell = string | number;

/** A number with `digits` decimals, thin spaces between thousands (as docs/benchmarks.md writes them). */
export function num(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return 'n/a';
  const [whole = '', fraction] = value.toFixed(digits).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** `value ÷ base` as "×1.23" (the growth of a figure against the first row of its sweep). */
export function times(value: number, base: number): string {
  return base > 0 && Number.isFinite(value) ? `×${(value / base).toFixed(2)}` : 'n/a';
}

export function table(head: string[], rows: Cell[][]): string {
  const line = (cells: Cell[]) => `| ${cells.join(' | ')} |`;
  const rule = `|${head.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`;
  return [line(head), rule, ...rows.map(line)].join('\n');
}

export interface Series {
  name: string;
  values: number[];
}

/**
 * A Mermaid line chart, one line per series over the x labels. xychart-beta draws no legend, so the title names the
 * series in order.
 */
export function chart(title: string, xLabel: string, x: Cell[], yLabel: string, series: Series[]): string {
  const all = series.flatMap((s) => s.values).filter(Number.isFinite);
  const top = niceCeiling(Math.max(0, ...all));
  const names = series.length > 1 ? ` (${series.map((s) => s.name).join(', ')}, in that order)` : '';
  return [
    '```mermaid',
    'xychart-beta',
    `  title "${title}${names}"`,
    `  x-axis "${xLabel}" [${x.map((v) => `"${v}"`).join(', ')}]`,
    `  y-axis "${yLabel}" 0 --> ${top}`,
    ...series.map(
      (s) => `  line [${s.values.map((v) => (Number.isFinite(v) ? Number(v.toPrecision(3)) : 0)).join(', ')}]`,
    ),
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
