// PromQL as Prometheus reads it: promtool (Debian's prometheus package, the same parser as the server) checks every
// expression, and the series an expression selects come from promtool's own parse, never from a regular expression
// over the query text.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function promtool(args: string[], cwd?: string): Promise<string> {
  try {
    const { stdout, stderr } = await run(process.env.PROMTOOL ?? 'promtool', args, { cwd });
    return stdout + stderr;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`promtool ${args.join(' ')} failed:\n${stdout}${stderr}`);
  }
}

export interface Matcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

/** One vector or matrix selector: its metric name (undefined when only a regex on __name__ picks series). */
export interface Selector {
  name: string | undefined;
  matchers: Matcher[];
}

const MARKER = 'zz_selector_marker';

/**
 * Every selector in `expr`. promtool's `label-matchers set` parses the query and adds a matcher to each selector it
 * finds; the selectors are then read back from its output, where only they carry that matcher. A query promtool
 * cannot parse throws with promtool's message.
 */
export async function selectorsOf(expr: string): Promise<Selector[]> {
  const marked = await promtool(['--experimental', 'promql', 'label-matchers', 'set', expr, MARKER, '1']);
  const selectors: Selector[] = [];
  for (const [, name, body = ''] of marked.matchAll(/([a-zA-Z_:][\w:]*)?\{((?:[^{}"]|"(?:[^"\\]|\\.)*")*)\}/g)) {
    const matchers = [...body.matchAll(/(\w+)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)].map(
      ([, label = '', op, value = '']) => ({ label, op: op as Matcher['op'], value: JSON.parse(`"${value}"`) }),
    );
    if (!matchers.some((m) => m.label === MARKER)) continue;
    const own = matchers.filter((m) => m.label !== MARKER);
    const byName = own.find((m) => m.label === '__name__' && m.op === '=')?.value;
    selectors.push({ name: name ?? byName, matchers: own.filter((m) => m.label !== '__name__' || m.op !== '=') });
  }
  return selectors;
}

/** The value of an equality matcher on `label`, if the selector has one. */
export const matcherValue = (selector: Selector, label: string) =>
  selector.matchers.find((m) => m.label === label && m.op === '=')?.value;
