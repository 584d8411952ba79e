// A projects file's document (parsed JSON or YAML) turned into each project's settings: the schema first, then what a
// schema cannot say (a key that is no DSN, two keys for one project, an unknown rule or filter id, an origin not in
// its serialized form, a DSN whose derived tunnel path this process does not serve).
import { type IgnoreRule, ignoreRules } from '@app/telemetry-rules';
import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';
import { parseDsn } from '../envelope/dsn.ts';
import { filterIdsFrom } from '../pipeline/inbound-filters/settings.ts';
import { NO_QUOTAS, parseQuotaSettings } from '../pipeline/quota/settings.ts';
import { DEFAULT_SCRUB_SETTINGS, type ScrubSettings } from '../pipeline/scrub.ts';
import type { ProjectSettings } from './project.ts';
import { type FileProblem, pathOf, schemaProblems } from './schema.ts';

export interface DocumentOptions {
  /** Set when the tunnel paths are the DSNs' own (TUNNEL_PATH unset): a new DSN must derive one of them. */
  derivedTunnelPaths?: readonly string[] | undefined;
  /** Resolves a page token's `secretEnv` (the secret stays in a Secret, not the file's ConfigMap). */
  env?: Readonly<Record<string, string | undefined>>;
}

export type DocumentResult = { projects: ProjectSettings[]; problems?: never } | { problems: FileProblem[] };

/** IGNORE_RULES' and the file's `ignoreRules`: `all`, `none` or rule ids; the unknown ids named. */
export function ignoreRulesFrom(ids: readonly string[]): { rules: IgnoreRule[]; unknown: string[] } {
  if (ids.length === 1 && ids[0] === 'all') return { rules: [...ignoreRules], unknown: [] };
  if (ids.length === 1 && ids[0] === 'none') return { rules: [], unknown: [] };
  const rules: IgnoreRule[] = [];
  const unknown: string[] = [];
  for (const id of ids) {
    const rule = ignoreRules.find((r) => r.id === id);
    if (rule) rules.push(rule);
    else unknown.push(id);
  }
  return { rules, unknown };
}

/** An origin must be written as a browser's Origin header gives it (`https://app.example.com`), or it never matches. */
export function originProblem(origin: string): string | undefined {
  const serialized = URL.parse(origin)?.origin;
  if (serialized === origin && /^https?:/.test(origin)) return undefined;
  return `must be an origin as the browser sends it: http(s)://host[:port]${serialized && serialized !== 'null' ? ` (${serialized})` : ''}`;
}

interface ProjectEntry {
  origins: string[];
  scrub?: Partial<ScrubSettings>;
  inboundFilters?: { filters?: string[]; errorMessages?: string[]; releases?: string[] };
  ignoreRules?: string[];
  quotas?: unknown;
}

export function projectsFromDocument(document: unknown, options: DocumentOptions = {}): DocumentResult {
  const problems = schemaProblems(document);
  const entries = (document as { projects?: unknown } | null)?.projects;
  if (typeof entries !== 'object' || entries === null || Array.isArray(entries)) return { problems };
  const projects: ProjectSettings[] = [];
  const firstKey = new Map<string, string>();
  for (const [text, entry] of Object.entries(entries as Record<string, ProjectEntry>)) {
    const at = (...rest: string[]) => pathOf(['projects', text, ...rest]);
    const dsn = parseDsn(text);
    if (typeof dsn === 'string') {
      if (/^https?:\/\//.test(text)) problems.push({ path: at(), message: `is not a DSN: it ${dsn}` });
      continue;
    }
    // The rest reads the entry's shape: only for an entry the schema found nothing wrong with (named above).
    const own = at();
    if (problems.some((p) => p.path === own || p.path.startsWith(`${own}.`) || p.path.startsWith(`${own}[`))) continue;
    const earlier = firstKey.get(dsn.key);
    if (earlier !== undefined) {
      problems.push({
        path: at(),
        message: `is the same project and key as ${pathOf(['projects', earlier])}`,
      });
    } else firstKey.set(dsn.key, text);
    const path = tunnelPathOf(dsn.key);
    if (options.derivedTunnelPaths && (path === undefined || !options.derivedTunnelPaths.includes(path))) {
      problems.push({
        path: at(),
        message: `derives the tunnel path ${path} this relay does not serve (set TUNNEL_PATH, or restart to serve it)`,
      });
    }
    entry.origins.forEach((origin, i) => {
      const problem = originProblem(origin);
      if (problem) problems.push({ path: at('origins', String(i)), message: problem });
    });
    const { rules, unknown } = ignoreRulesFrom(entry.ignoreRules ?? ['all']);
    for (const id of unknown) {
      problems.push({
        path: at('ignoreRules'),
        message: `names an unknown rule ${JSON.stringify(id)} (known: ${ignoreRules.map((r) => r.id).join(', ')}, or all/none)`,
      });
    }
    const filters = filterIdsFrom(entry.inboundFilters?.filters ?? ['default']);
    for (const message of filters.problems) problems.push({ path: at('inboundFilters', 'filters'), message });
    const quotas = parseQuotaSettings(entry.quotas, options.env ?? process.env);
    // The quota module's paths start at `quotas` (`quotas.limits[0].limit`): below the project's own.
    for (const { path, message } of 'errors' in quotas ? quotas.errors : [])
      problems.push({ path: `${own}.${path}`, message });
    projects.push({
      dsns: [dsn],
      origins: entry.origins,
      scrub: { ...DEFAULT_SCRUB_SETTINGS, ...entry.scrub },
      inboundFilters: {
        ids: filters.ids,
        errorMessages: entry.inboundFilters?.errorMessages ?? [],
        releases: entry.inboundFilters?.releases ?? [],
      },
      ignoreRules: rules,
      quotas: 'settings' in quotas ? quotas.settings : NO_QUOTAS,
    });
  }
  return problems.length > 0 ? { problems } : { projects };
}
