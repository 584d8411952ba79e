// A project's quota settings (issue 40 point 3): local quotas, the spike shield and the page token, validated from
// the projects file's `quotas` value (passed through untyped) or built from the env shorthand (env.ts). Shapes
// follow Sentry Relay's `Quota` (relay-quotas): categories, scope, limit, window, reasonCode.
import { KNOWN_CATEGORIES } from '../../envelope/categories.ts';

/** Where a quota counts: one counter per project, or one per client network (pipeline/client-network.ts). */
export type QuotaScope = 'project' | 'network';

export interface Quota {
  /** Names the quota in logs and metrics. */
  id: string;
  /** Sentry data categories counted (envelope/categories.ts); empty = every category but client reports. */
  categories: string[];
  scope: QuotaScope;
  /** Items per window (the `attachment` category counts bytes, as Relay does); 0 refuses the categories. */
  limit: number;
  /** Seconds; counted in fixed windows aligned to the epoch, as Relay's Redis quotas are. */
  window: number;
  /** The reason an X-Sentry-Rate-Limits entry names. */
  reasonCode: string;
}

export interface SpikeShieldSettings {
  /** Occurrences of one error fingerprint per window kept in full; past it, one in `keepOneIn` is kept. */
  threshold: number;
  window: number;
  keepOneIn: number;
}

export interface PageTokenSettings {
  secret: string;
  skewSeconds: number;
  maxTtlSeconds: number;
}

export interface QuotaSettings {
  quotas: Quota[];
  spikeShield: SpikeShieldSettings | undefined;
  /** Set: envelopes on the tunnel need a valid X-Page-Token (CSP reports cannot carry one). */
  pageToken: PageTokenSettings | undefined;
}

export const NO_QUOTAS: QuotaSettings = { quotas: [], spikeShield: undefined, pageToken: undefined };

/** Most quotas one project may have: each costs a counter lookup per item. */
export const MAX_QUOTAS = 32;
const MAX_WINDOW_SECONDS = 31 * 24 * 3600;
const NAME = /^[A-Za-z0-9_.:;-]{1,64}$/;
const REASON = /^[a-z0-9_]{1,64}$/;

/** One thing wrong with a `quotas` value: where, from `quotas` on (`quotas.limits[0].limit`), and what. */
export interface QuotaProblem {
  path: string;
  message: string;
}

type Parsed = { settings: QuotaSettings } | { errors: QuotaProblem[] };

/**
 * Validates a project's `quotas` value, naming every error with its path. `env` resolves `pageToken.secretEnv`,
 * so the secret can stay in a Secret rather than the projects file's ConfigMap.
 */
export function parseQuotaSettings(raw: unknown, env: Readonly<Record<string, string | undefined>> = {}): Parsed {
  const errors: QuotaProblem[] = [];
  if (raw === undefined || raw === null) return { settings: NO_QUOTAS };
  if (!isObject(raw))
    return { errors: [{ path: 'quotas', message: 'must be an object with limits, spikeShield, pageToken' }] };
  unknownKeys(raw, ['limits', 'spikeShield', 'pageToken'], 'quotas', errors);
  const quotas = parseLimits(raw.limits, errors);
  const spikeShield = parseSpikeShield(raw.spikeShield, errors);
  const pageToken = parsePageToken(raw.pageToken, env, errors);
  return errors.length > 0 ? { errors } : { settings: { quotas, spikeShield, pageToken } };
}

function parseLimits(raw: unknown, errors: QuotaProblem[]): Quota[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    errors.push({ path: 'quotas.limits', message: 'must be an array of quotas' });
    return [];
  }
  if (raw.length > MAX_QUOTAS)
    errors.push({ path: 'quotas.limits', message: `has ${raw.length} quotas; at most ${MAX_QUOTAS}` });
  const ids = new Set<string>();
  return raw.slice(0, MAX_QUOTAS).flatMap((entry, i): Quota[] => {
    const at = `quotas.limits[${i}]`;
    if (!isObject(entry)) {
      errors.push({ path: at, message: 'must be an object' });
      return [];
    }
    unknownKeys(entry, ['id', 'categories', 'scope', 'limit', 'window', 'reasonCode'], at, errors);
    const before = errors.length;
    const categories = entry.categories ?? [];
    if (!Array.isArray(categories) || !categories.every((c) => typeof c === 'string')) {
      errors.push({ path: `${at}.categories`, message: 'must be an array of data category names' });
    } else {
      for (const c of categories)
        if (!KNOWN_CATEGORIES.has(c) || c === 'internal')
          errors.push({
            path: `${at}.categories`,
            message: `unknown data category ${JSON.stringify(c)} (known: ${[...KNOWN_CATEGORIES].join(', ')})`,
          });
    }
    const scope = entry.scope ?? 'project';
    if (scope !== 'project' && scope !== 'network')
      errors.push({ path: `${at}.scope`, message: 'must be "project" or "network"' });
    const limit = integer(entry.limit, `${at}.limit`, 0, 1e12, errors);
    const window = integer(entry.window, `${at}.window`, 1, MAX_WINDOW_SECONDS, errors);
    const reasonCode = entry.reasonCode ?? `${String(scope)}_quota`;
    if (typeof reasonCode !== 'string' || !REASON.test(reasonCode))
      errors.push({
        path: `${at}.reasonCode`,
        message: 'must be 1-64 characters of a-z, 0-9 and _ (it goes into a header)',
      });
    const cats = categories as string[];
    const id = entry.id ?? `${String(scope)}:${cats.length === 0 ? 'all' : cats.join(';')}:${String(window)}s`;
    if (typeof id !== 'string' || !NAME.test(id))
      errors.push({ path: `${at}.id`, message: 'must be 1-64 characters of letters, digits, _ . -' });
    else if (ids.has(id)) errors.push({ path: `${at}.id`, message: `${JSON.stringify(id)} is used twice` });
    ids.add(String(id));
    if (errors.length > before) return [];
    return [{ id, categories: [...new Set(cats)], scope, limit, window, reasonCode } as Quota];
  });
}

function parseSpikeShield(raw: unknown, errors: QuotaProblem[]): SpikeShieldSettings | undefined {
  if (raw === undefined || raw === false) return undefined;
  if (!isObject(raw)) {
    errors.push({ path: 'quotas.spikeShield', message: 'must be an object { threshold, window, keepOneIn } or false' });
    return undefined;
  }
  unknownKeys(raw, ['threshold', 'window', 'keepOneIn'], 'quotas.spikeShield', errors);
  return {
    threshold: integer(raw.threshold, 'quotas.spikeShield.threshold', 1, 1e9, errors),
    window: integer(raw.window ?? 60, 'quotas.spikeShield.window', 1, 24 * 3600, errors),
    keepOneIn: integer(raw.keepOneIn ?? 100, 'quotas.spikeShield.keepOneIn', 1, 1e6, errors),
  };
}

function parsePageToken(
  raw: unknown,
  env: Readonly<Record<string, string | undefined>>,
  errors: QuotaProblem[],
): PageTokenSettings | undefined {
  if (raw === undefined || raw === false) return undefined;
  if (!isObject(raw)) {
    errors.push({
      path: 'quotas.pageToken',
      message: 'must be an object { secretEnv | secret, skewSeconds, maxTtlSeconds } or false',
    });
    return undefined;
  }
  unknownKeys(raw, ['secret', 'secretEnv', 'skewSeconds', 'maxTtlSeconds'], 'quotas.pageToken', errors);
  let secret: unknown = raw.secret;
  if (raw.secretEnv !== undefined) {
    if (typeof raw.secretEnv !== 'string')
      errors.push({ path: 'quotas.pageToken.secretEnv', message: 'must name an environment variable' });
    else {
      secret = env[raw.secretEnv];
      if (secret === undefined)
        errors.push({ path: 'quotas.pageToken.secretEnv', message: `${raw.secretEnv} is not set` });
    }
    if (raw.secret !== undefined)
      errors.push({ path: 'quotas.pageToken', message: 'give secret or secretEnv, not both' });
  }
  if (typeof secret !== 'string' || secret.length < 32) {
    if (secret !== undefined || raw.secretEnv === undefined)
      errors.push({
        path: 'quotas.pageToken.secret',
        message: 'must be at least 32 characters (e.g. `openssl rand -base64 32`)',
      });
  }
  return {
    secret: String(secret),
    skewSeconds: integer(raw.skewSeconds ?? 60, 'quotas.pageToken.skewSeconds', 0, 3600, errors),
    maxTtlSeconds: integer(raw.maxTtlSeconds ?? 24 * 3600, 'quotas.pageToken.maxTtlSeconds', 60, 7 * 24 * 3600, errors),
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function unknownKeys(
  value: Record<string, unknown>,
  known: readonly string[],
  at: string,
  errors: QuotaProblem[],
): void {
  for (const key of Object.keys(value))
    if (!known.includes(key))
      errors.push({ path: at, message: `unknown setting ${JSON.stringify(key)} (known: ${known.join(', ')})` });
}

function integer(value: unknown, at: string, min: number, max: number, errors: QuotaProblem[]): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    errors.push({
      path: at,
      message: `must be an integer from ${min} to ${max} (got ${JSON.stringify(value) ?? 'nothing'})`,
    });
    return min;
  }
  return value;
}
