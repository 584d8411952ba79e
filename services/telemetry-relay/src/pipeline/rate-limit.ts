// Limits learnt from upstream's answers, per DSN and category, enforced here so a limited project does not
// make the relay hammer Sentry; the SDK gets the same headers back. Per DSN: the relay cannot know which projects
// share an organization, so an organization-wide limit is learnt per project.

import type { Discarded } from '../core/types.ts';
import { itemCategory } from '../envelope/categories.ts';
import type { ParsedLimit } from '../envelope/rate-limit-header.ts';
import type { EnvelopeItem } from '../envelope/types.ts';

const ALL = '';

interface Limit {
  until: number;
  scope: string;
  reason: string;
}

export interface RateLimitDecision {
  items: EnvelopeItem[];
  discarded: Discarded[];
  droppedTypes: string[];
}

export class RateLimits {
  readonly #byDsn = new Map<string, Map<string, Limit>>();

  /** Remembers what an upstream answer for `dsnKey` announced. */
  update(dsnKey: string, limits: readonly ParsedLimit[], now = Date.now()): void {
    if (limits.length === 0) return;
    let table = this.#byDsn.get(dsnKey);
    if (!table) {
      table = new Map();
      this.#byDsn.set(dsnKey, table);
    }
    for (const limit of limits) {
      const until = now + limit.seconds * 1000;
      for (const category of limit.categories.length === 0 ? [ALL] : limit.categories) {
        const current = table.get(category);
        if (!current || current.until < until) table.set(category, { until, scope: limit.scope, reason: limit.reason });
      }
    }
  }

  /** When the items of `category` may be sent again (0 = now). */
  limitedUntil(dsnKey: string, category: string | undefined, now = Date.now()): number {
    const table = this.#byDsn.get(dsnKey);
    if (!table || category === 'internal') return 0;
    const all = table.get(ALL);
    const own = category === undefined ? undefined : table.get(category);
    const until = Math.max(all?.until ?? 0, own?.until ?? 0);
    return until > now ? until : 0;
  }

  /** Splits items into those that may go and those a limit holds back. */
  apply(dsnKey: string, items: EnvelopeItem[], now = Date.now()): RateLimitDecision {
    if (!this.#byDsn.has(dsnKey)) return { items, discarded: [], droppedTypes: [] };
    const kept: EnvelopeItem[] = [];
    const counts = new Map<string, number>();
    const droppedTypes: string[] = [];
    for (const item of items) {
      const category = itemCategory(item.type, item.header);
      if (this.limitedUntil(dsnKey, category, now) === 0) {
        kept.push(item);
        continue;
      }
      droppedTypes.push(item.type);
      const key = category ?? 'default';
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    if (droppedTypes.length === 0) return { items, discarded: [], droppedTypes };
    const discarded = [...counts].map(([category, quantity]) => ({ reason: 'ratelimit_backoff', category, quantity }));
    return { items: kept, discarded, droppedTypes };
  }

  /** Retry-After and X-Sentry-Rate-Limits for the SDK, describing the limits active for `dsnKey` (if any). */
  headers(dsnKey: string, now = Date.now()): Record<string, string> {
    const table = this.#byDsn.get(dsnKey);
    if (!table) return {};
    const parts: string[] = [];
    let longest = 0;
    for (const [category, limit] of table) {
      if (limit.until <= now) {
        table.delete(category);
        continue;
      }
      const seconds = Math.ceil((limit.until - now) / 1000);
      longest = Math.max(longest, seconds);
      parts.push(`${seconds}:${category}:${limit.scope || 'key'}${limit.reason ? `:${limit.reason}` : ''}`);
    }
    if (table.size === 0) this.#byDsn.delete(dsnKey);
    if (parts.length === 0) return {};
    return { 'retry-after': String(longest), 'x-sentry-rate-limits': parts.join(', ') };
  }

  /** Number of (DSN, category) limits still in force, for the metrics. */
  activeCount(now = Date.now()): number {
    let count = 0;
    for (const table of this.#byDsn.values()) for (const limit of table.values()) if (limit.until > now) count++;
    return count;
  }
}
