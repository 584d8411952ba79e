// The environment's part about projects: PROJECTS_FILE, or the one-project shorthand (ALLOWED_DSNS and the
// per-project variables), the tunnel paths derived from their DSNs, and development's loopback DSNs. Read by
// config.ts with every other variable, so a bad one is named with the rest.
import type { Env, EnvReader } from '@app/service-kit';
import { type IgnoreRule, ignoreRules } from '@app/telemetry-rules';
import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';
import { type Dsn, parseDsn } from '../envelope/dsn.ts';
import { readInboundFilters } from '../pipeline/inbound-filters/config.ts';
import type { InboundFilterSettings } from '../pipeline/inbound-filters/settings.ts';
import { readQuotaSettings } from '../pipeline/quota/env.ts';
import { NO_QUOTAS } from '../pipeline/quota/settings.ts';
import type { ScrubSettings } from '../pipeline/scrub.ts';
import { ignoreRulesFrom, originProblem } from './document.ts';
import { readProjectsFile } from './file.ts';
import type { ProjectSettings } from './project.ts';

/** The variables a project sets: with PROJECTS_FILE, its entries do, and the environment must not. */
const PER_PROJECT_VARIABLES = [
  'ALLOWED_DSNS',
  'ALLOWED_ORIGINS',
  'IGNORE_RULES',
  'INBOUND_FILTERS',
  'INBOUND_ERROR_MESSAGES',
  'INBOUND_RELEASES',
  'SCRUB_DATA',
  'SCRUB_DEFAULTS',
  'SCRUB_IP_ADDRESSES',
  'SCRUB_STRICT',
  'SENSITIVE_FIELDS',
  'SAFE_FIELDS',
  'QUOTAS',
  'QUOTA_ERRORS_PER_MINUTE',
  'QUOTA_TRANSACTIONS_PER_MINUTE',
  'QUOTA_REPLAYS_PER_MINUTE',
  'QUOTA_NETWORK_ITEMS_PER_MINUTE',
  'SPIKE_SHIELD_THRESHOLD',
  'SPIKE_SHIELD_WINDOW_SECONDS',
  'SPIKE_SHIELD_KEEP_ONE_IN',
  // PAGE_TOKEN_SECRET is not refused: with the file, a project names it (`pageToken.secretEnv`), from a Secret.
  'PAGE_TOKEN_SKEW_SECONDS',
  'PAGE_TOKEN_MAX_TTL_SECONDS',
];

/** The projects at startup, and how to read them again (projects/live.ts). */
export interface ProjectsConfig {
  /** PROJECTS_FILE; undefined: the environment's one implicit project. */
  file: string | undefined;
  initial: ProjectSettings[];
  sha256: string | undefined;
  /** The tunnel paths, when derived from the DSNs: a reloaded file's DSNs must derive one of them. */
  derivedTunnelPaths: string[] | undefined;
  /** A burst of changes in the file's directory is one reload this long after the last. */
  watchDebounceMs: number;
}

/** The environment's one-project shorthand, as read (unused with PROJECTS_FILE but for the loopback ports). */
export interface ShorthandConfig {
  /** ALLOWED_DSNS. */
  allowedDsns: Dsn[];
  /** Development only (ALLOW_LOOPBACK_DSNS): with no allowlist, loopback DSNs naming one of these ports. */
  loopbackPorts: number[];
  /** IGNORE_RULES. */
  ignoreRules: IgnoreRule[];
  /** Relay's inbound filters (INBOUND_FILTERS, INBOUND_ERROR_MESSAGES, INBOUND_RELEASES). */
  inboundFilters: InboundFilterSettings;
  /** Data scrubbing, Sentry's project settings (SCRUB_*, SENSITIVE_FIELDS, SAFE_FIELDS). */
  scrub: ScrubSettings;
}

export function readProjectsConfig(
  env: Env,
  reader: EnvReader,
): ShorthandConfig & { projects: ProjectsConfig; tunnelPaths: string[] } {
  const projectsFile = reader.optionalString('PROJECTS_FILE');
  if (projectsFile !== undefined) {
    for (const name of PER_PROJECT_VARIABLES) {
      reader.check(
        name,
        env[name]?.trim() ? 'is set per project in PROJECTS_FILE: remove it from the environment' : undefined,
      );
    }
  }
  const loaded = projectsFile === undefined ? undefined : readProjectsFile(projectsFile, { env });
  if (loaded && 'problems' in loaded) {
    for (const { path, message } of loaded.problems) reader.check('PROJECTS_FILE', `${path}: ${message}`);
  }
  const fileProjects = loaded && !('problems' in loaded) ? loaded.projects : undefined;

  const allowedDsns: Dsn[] = [];
  for (const text of reader.list('ALLOWED_DSNS')) {
    const dsn = parseDsn(text);
    if (typeof dsn === 'string') reader.check('ALLOWED_DSNS', `entry ${JSON.stringify(text)} ${dsn}`);
    else allowedDsns.push(dsn);
  }
  const loopbackPorts = readLoopbackPorts(reader);
  if (
    projectsFile === undefined &&
    allowedDsns.length === 0 &&
    loopbackPorts.length === 0 &&
    reader.list('ALLOWED_DSNS').length === 0
  ) {
    reader.check(
      'ALLOWED_DSNS',
      "is required: the DSNs this relay forwards for (or PROJECTS_FILE; or, in development, ALLOW_LOOPBACK_DSNS=<port> to accept DSNs on a loopback host with that port, the local viewer's)",
    );
  }
  const allowedOrigins = reader.list('ALLOWED_ORIGINS');
  for (const origin of allowedOrigins) {
    const problem = originProblem(origin);
    reader.check('ALLOWED_ORIGINS', problem && `entry ${JSON.stringify(origin.slice(0, 64))} ${problem}`);
  }

  // Unset: the path SDK 11's `tunnel: true` derives from each allowed DSN, as the web does from its own (decision 048).
  const explicitPath = reader.optionalString('TUNNEL_PATH')?.replace(/\/+$/, '');
  const dsnTexts = fileProjects?.flatMap((p) => p.dsns.map((dsn) => dsn.key)) ?? reader.list('ALLOWED_DSNS');
  const tunnelPaths =
    explicitPath === undefined ? [...new Set(dsnTexts.flatMap((text) => tunnelPathOf(text) ?? []))] : [explicitPath];
  for (const path of tunnelPaths)
    reader.check(
      'TUNNEL_PATH',
      /^\/[\w\-./~]+$/.test(path) ? undefined : `must be a path like /x7k2q9 (got ${JSON.stringify(path)})`,
    );
  if (tunnelPaths.length === 0 && !(loaded && 'problems' in loaded))
    reader.check(
      'TUNNEL_PATH',
      'is required when ALLOWED_DSNS names no DSN to derive it from (the path `tunnel: true` derives from the DSN)',
    );

  const { rules, unknown } = ignoreRulesFrom(reader.list('IGNORE_RULES', ['all']));
  for (const id of unknown) {
    reader.check(
      'IGNORE_RULES',
      `names an unknown rule ${JSON.stringify(id)} (known: ${ignoreRules.map((r) => r.id).join(', ')}, or all/none)`,
    );
  }
  const inboundFilters = readInboundFilters(reader);
  const scrub = readScrubSettings(reader);
  const quotas = fileProjects === undefined ? readQuotaSettings(reader, env) : NO_QUOTAS;
  const projects: ProjectsConfig = {
    file: projectsFile,
    initial: fileProjects ?? [
      {
        dsns: allowedDsns,
        origins: reader.optionalString('ALLOWED_ORIGINS') === undefined ? undefined : allowedOrigins,
        scrub,
        inboundFilters,
        ignoreRules: rules,
        quotas,
      },
    ],
    sha256: loaded && 'sha256' in loaded ? loaded.sha256 : undefined,
    derivedTunnelPaths: explicitPath === undefined ? tunnelPaths : undefined,
    watchDebounceMs: reader.integer('PROJECTS_WATCH_DEBOUNCE_MS', 1_000, { min: 10, max: 60_000 }),
  };
  return { projects, tunnelPaths, allowedDsns, loopbackPorts, ignoreRules: rules, inboundFilters, scrub };
}

/**
 * ALLOW_LOOPBACK_DSNS: `false` (default) or the port(s) a loopback DSN may name — the local viewer's. Any port would
 * let a web page make the relay POST to every service listening on the machine.
 */
function readLoopbackPorts(reader: EnvReader): number[] {
  const values = reader.list('ALLOW_LOOPBACK_DSNS', ['false']);
  if (values.length === 1 && ['false', '0', 'no', 'off'].includes(values[0]?.toLowerCase() ?? '')) return [];
  const ports = values.map(Number);
  reader.check(
    'ALLOW_LOOPBACK_DSNS',
    ports.every((port) => Number.isInteger(port) && port > 0 && port <= 65535)
      ? undefined
      : `must be false or the loopback port(s) DSNs may name, e.g. 8969 for the local viewer (got ${JSON.stringify(values.join(','))})`,
  );
  return ports.filter((port) => Number.isInteger(port) && port > 0 && port <= 65535);
}

/** Data scrubbing, named after Sentry's project settings (docs/configuration.md, docs/decisions/012). */
function readScrubSettings(reader: EnvReader): ScrubSettings {
  const fieldList = (name: string): string[] => {
    const fields = reader.list(name);
    const bad = fields.find((field) => field.length > 200 || /\p{Cc}/u.test(field));
    reader.check(
      name,
      bad === undefined
        ? undefined
        : `has an entry longer than 200 characters or with a control character (${JSON.stringify(bad.slice(0, 40))})`,
    );
    reader.check(name, fields.length <= 100 ? undefined : `has ${fields.length} entries; at most 100`);
    return fields;
  };
  return {
    scrubData: reader.boolean('SCRUB_DATA', true),
    scrubDefaults: reader.boolean('SCRUB_DEFAULTS', true),
    scrubIpAddresses: reader.boolean('SCRUB_IP_ADDRESSES', false),
    sensitiveFields: fieldList('SENSITIVE_FIELDS'),
    safeFields: fieldList('SAFE_FIELDS'),
    strict: reader.boolean('SCRUB_STRICT', false),
  };
}
