// The env shorthand for the one-project default: a few variables built into the projects file's `quotas` shape and
// validated by the same parseQuotaSettings, so both spellings mean the same thing.
import type { EnvReader } from '@app/service-kit';
import { NO_QUOTAS, parseQuotaSettings, type QuotaSettings } from './settings.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** QUOTAS (JSON, the file's `limits`), QUOTA_*_PER_MINUTE, SPIKE_SHIELD_*, PAGE_TOKEN_*; see the relay README. */
export function readQuotaSettings(reader: EnvReader, env: Env): QuotaSettings {
  const limits: unknown[] = [];
  const json = reader.optionalString('QUOTAS');
  if (json !== undefined) {
    try {
      const parsed: unknown = JSON.parse(json);
      if (Array.isArray(parsed)) limits.push(...parsed);
      else reader.check('QUOTAS', 'must be a JSON array of quotas ({"categories":["error"],"limit":100,"window":60})');
    } catch (error) {
      reader.check('QUOTAS', `is not JSON (${(error as Error).message})`);
    }
  }
  const perMinute = (name: string, categories: string[], scope: 'project' | 'network') => {
    const limit = reader.integer(name, -1, { min: -1, max: 1e12 });
    if (limit >= 0) limits.push({ id: name.toLowerCase(), categories, scope, limit, window: 60 });
  };
  perMinute('QUOTA_ERRORS_PER_MINUTE', ['error'], 'project');
  perMinute('QUOTA_TRANSACTIONS_PER_MINUTE', ['transaction'], 'project');
  perMinute('QUOTA_REPLAYS_PER_MINUTE', ['replay'], 'project');
  perMinute('QUOTA_NETWORK_ITEMS_PER_MINUTE', [], 'network');

  const threshold = reader.integer('SPIKE_SHIELD_THRESHOLD', 0, { min: 0, max: 1e9 });
  const spikeShield =
    threshold === 0
      ? undefined
      : {
          threshold,
          window: reader.integer('SPIKE_SHIELD_WINDOW_SECONDS', 60, { min: 1, max: 24 * 3600 }),
          keepOneIn: reader.integer('SPIKE_SHIELD_KEEP_ONE_IN', 100, { min: 1, max: 1e6 }),
        };
  const secret = reader.optionalString('PAGE_TOKEN_SECRET');
  const pageToken =
    secret === undefined
      ? undefined
      : {
          secret,
          skewSeconds: reader.integer('PAGE_TOKEN_SKEW_SECONDS', 60, { min: 0, max: 3600 }),
          maxTtlSeconds: reader.integer('PAGE_TOKEN_MAX_TTL_SECONDS', 24 * 3600, { min: 60, max: 7 * 24 * 3600 }),
        };
  if (limits.length === 0 && spikeShield === undefined && pageToken === undefined) return NO_QUOTAS;
  const parsed = parseQuotaSettings({ limits, spikeShield, pageToken }, env);
  if ('errors' in parsed) {
    for (const { path, message } of parsed.errors) reader.check(variableOf(path), `gives ${path}: ${message}`);
    return NO_QUOTAS;
  }
  return parsed.settings;
}

/** The variable an error of the built object came from (its path names the setting). */
function variableOf(path: string): string {
  if (path.startsWith('quotas.pageToken')) return 'PAGE_TOKEN_SECRET';
  if (path.startsWith('quotas.spikeShield')) return 'SPIKE_SHIELD_THRESHOLD';
  return 'QUOTAS';
}
