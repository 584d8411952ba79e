// The deploy preflight: renders an overlay (kubectl kustomize) and finds every value an operator has still to set,
// named as operator.env names it, or by object and field when a placeholder reached the render another way.
// Used by `npm run deploy:check -- <overlay>` and, for the overlay it pins, `npm run release`.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { ReleaseError } from './plan.ts';

const run = promisify(execFile);

/** What the repository ships in place of an operator's value, and how each is recognised. */
const PLACEHOLDERS: [RegExp, string][] = [
  [/(^|[^a-z0-9-])([a-z0-9-]+\.)*example\.(com|org|net)(?![a-z0-9-])|\.example(?![a-z0-9-])/i, 'an example domain'],
  [/github\.com\/example\//i, 'the example repository'],
  [/(^|[^0-9.])(192\.0\.2|198\.51\.100|203\.0\.113)\.\d{1,3}(?![0-9])/, 'a documentation address (TEST-NET)'],
  [/@o0\.ingest\.sentry\.io(?![a-z0-9.-])|examplePublicKey/i, "Sentry's example DSN"],
];
/** The line above a value in operator.env that keeps it a placeholder until the operator has checked it. */
export const MARKER = '# OPERATOR MUST SET';

export interface OperatorValue {
  name: string;
  value: string;
  marked: boolean;
}

export interface Placeholder {
  /** The operator.env name, or `<Kind>/<name> <field path>` for a placeholder found only in the render. */
  name: string;
  value: string;
  why: string;
}

export function placeholderReasons(value: string): string[] {
  return PLACEHOLDERS.filter(([pattern]) => pattern.test(value)).map(([, why]) => why);
}

/** operator.env as kustomize reads it (NAME=value lines, # comments), with each value's marker. */
export function parseOperatorEnv(text: string): OperatorValue[] {
  const values: OperatorValue[] = [];
  let marked = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === MARKER) marked = true;
    if (line === '' || line.startsWith('#')) continue;
    const equals = line.indexOf('=');
    if (equals > 0) values.push({ name: line.slice(0, equals), value: line.slice(equals + 1), marked });
    marked = false;
  }
  return values;
}

/** Every string in a rendered object, with its field path (a.b.0.c). */
function* strings(node: unknown, path: string): Generator<[string, string]> {
  if (typeof node === 'string') yield [path, node];
  else if (Array.isArray(node)) for (const [i, item] of node.entries()) yield* strings(item, `${path}.${i}`);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) yield* strings(value, path ? `${path}.${key}` : key);
  }
}

export interface CheckOptions {
  /** Leave out containers' image fields (the release checks before it pins them, and checks its REGISTRY instead). */
  ignoreImages?: boolean;
}

/** The placeholders left: operator.env's first, then any other the render holds. */
export function findPlaceholders(values: OperatorValue[], objects: unknown[], options: CheckOptions = {}) {
  const found: Placeholder[] = [];
  for (const { name, value, marked } of values) {
    const why = [...placeholderReasons(value), ...(marked ? [`marked ${MARKER.slice(2)}`] : [])];
    if (why.length > 0) found.push({ name, value, why: why.join(', ') });
  }
  const known = found.map((p) => p.value).filter((v) => v !== '');
  for (const object of objects as { kind?: string; metadata?: { name?: string } }[]) {
    for (const [path, value] of strings(object, '')) {
      if (options.ignoreImages && /(^|\.)(initContainers|containers)\.\d+\.image$/.test(path)) continue;
      if (known.some((v) => value.includes(v))) continue;
      const why = placeholderReasons(value);
      if (why.length > 0)
        found.push({ name: `${object.kind}/${object.metadata?.name} ${path}`, value, why: why.join(', ') });
    }
  }
  return found;
}

export interface OverlayCheck {
  overlay: string;
  objects: number;
  placeholders: Placeholder[];
}

/** The overlay's objects as `kubectl kustomize` renders them. */
export async function renderObjects(dir: string): Promise<unknown[]> {
  if (!existsSync(`${dir}/kustomization.yaml`)) throw new ReleaseError(`no kustomization.yaml in ${dir}`);
  let rendered: string;
  try {
    rendered = (await run(process.env.KUBECTL ?? 'kubectl', ['kustomize', dir], { maxBuffer: 32 * 1024 * 1024 }))
      .stdout;
  } catch (error) {
    throw new ReleaseError(`kubectl kustomize ${dir} failed: ${(error as { stderr?: string }).stderr || error}`);
  }
  return parseAllDocuments(rendered).map((doc) => doc.toJS() as unknown);
}

export async function checkOverlay(dir: string, options: CheckOptions = {}): Promise<OverlayCheck> {
  const objects = await renderObjects(dir);
  const env = `${dir}/operator.env`;
  const values = existsSync(env) ? parseOperatorEnv(readFileSync(env, 'utf8')) : [];
  return { overlay: dir, objects: objects.length, placeholders: findPlaceholders(values, objects, options) };
}

/** What deploy:check prints: each placeholder on its own line, named, with why it is one. */
export function describeCheck(check: OverlayCheck): string {
  if (check.placeholders.length === 0) {
    return `${check.overlay}: no placeholders in the ${check.objects} rendered objects\n`;
  }
  const lines = check.placeholders.map((p) => `  ${p.name}=${p.value}  (${p.why})`);
  const where = `${check.overlay}/operator.env (an image: npm run release pins it; anything else: the overlay)`;
  return `${check.overlay}: ${check.placeholders.length} placeholder(s) left; set them in ${where}:\n${lines.join('\n')}\n`;
}
