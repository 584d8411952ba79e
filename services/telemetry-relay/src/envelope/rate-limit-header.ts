// Reading upstream's rate-limit answers (X-Sentry-Rate-Limits, Retry-After) into limits the relay can enforce.
import { KNOWN_CATEGORIES } from './categories.ts';

export interface ParsedLimit {
  /** Empty = every category. */
  categories: string[];
  seconds: number;
  scope: string;
  reason: string;
}

/**
 * The limits an upstream answer announces: X-Sentry-Rate-Limits on any status, else Retry-After on a 429.
 * Grammar (develop-docs "Rate Limiting"): `retry_after:categories:scope:reason[:namespaces]`, comma-separated;
 * empty categories = all; a limit naming only unknown categories is ignored.
 */
export function parseRateLimits(
  status: number,
  headers: { 'x-sentry-rate-limits'?: string | undefined; 'retry-after'?: string | undefined },
  now = Date.now(),
): ParsedLimit[] {
  const header = headers['x-sentry-rate-limits'];
  if (header) {
    const limits: ParsedLimit[] = [];
    for (const part of header.split(',')) {
      const [retry = '', categories = '', scope = '', reason = ''] = part.trim().split(':');
      const seconds = Number.parseFloat(retry);
      const cats = categories === '' ? [] : categories.split(';').filter((c) => KNOWN_CATEGORIES.has(c));
      if (categories !== '' && cats.length === 0) continue;
      limits.push({ categories: cats, seconds: Number.isFinite(seconds) && seconds > 0 ? seconds : 60, scope, reason });
    }
    return limits;
  }
  if (status !== 429) return [];
  return [{ categories: [], seconds: retryAfterSeconds(headers['retry-after'], now), scope: 'key', reason: '' }];
}

function retryAfterSeconds(value: string | undefined, now: number): number {
  if (!value) return 60;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? 60 : Math.max(0, (date - now) / 1000);
}
