// Local quotas: items counted per project or client network and data category in fixed windows; an item over any
// of its quotas is dropped (and not counted), the others go. Counted per pod: a fleet-wide limit L over R replicas
// is L / R per pod when the load balancer spreads clients evenly (docs/decisions/051).

import type { Discarded } from '../../core/types.ts';
import { itemCategory } from '../../envelope/categories.ts';
import type { EnvelopeItem } from '../../envelope/types.ts';
import { QUOTA_DROP_REASONS } from './reasons.ts';
import type { Quota, QuotaScope } from './settings.ts';
import { secondsLeft, WindowCounts } from './windows.ts';

/** One limit to announce: an X-Sentry-Rate-Limits entry. */
export interface ActiveLimit {
  seconds: number;
  categories: readonly string[];
  scope: QuotaScope;
  reasonCode: string;
}

export interface QuotaDecision {
  items: EnvelopeItem[];
  discarded: Discarded[];
  /** Dropped items, for metrics: item type and data category. */
  dropped: Array<{ type: string; category: string }>;
  /** The quotas that dropped something, for the answer's headers. */
  limits: ActiveLimit[];
}

/** Counters held at once, per pod: a network-scoped quota keys one per client network (≈150 bytes each). */
export const MAX_QUOTA_COUNTERS = 50_000;

/** What counts against a quota naming `category`: attachments in bytes (`attachment`) or items (`attachment_item`). */
function quantityFor(quota: Quota, item: EnvelopeItem, category: string): number {
  if (quota.categories.length === 0) return 1;
  if (category === 'attachment') {
    if (quota.categories.includes('attachment')) return item.payload.length;
    return quota.categories.includes('attachment_item') ? 1 : 0;
  }
  return quota.categories.includes(category) ? 1 : 0;
}

export class QuotaCounters {
  readonly #counts: WindowCounts;

  constructor(maxCounters = MAX_QUOTA_COUNTERS) {
    this.#counts = new WindowCounts(maxCounters);
  }

  get size(): number {
    return this.#counts.size;
  }

  /** Splits `items` into those within `quotas` (counted) and those over one (dropped, with their outcomes). */
  apply(
    quotas: readonly Quota[],
    scopeKeys: Readonly<Record<QuotaScope, string>>,
    items: EnvelopeItem[],
    now: number,
  ): QuotaDecision {
    if (quotas.length === 0) return { items, discarded: [], dropped: [], limits: [] };
    const kept: EnvelopeItem[] = [];
    const dropped: QuotaDecision['dropped'] = [];
    const hit = new Set<Quota>();
    let eventDropped = false;
    for (const item of items) {
      const category = itemCategory(item.type, item.header);
      if (category === 'internal' || category === undefined) {
        kept.push(item);
        continue;
      }
      const charges: Array<{ key: string; quantity: number; windowMs: number }> = [];
      let over: Quota | undefined;
      for (const quota of quotas) {
        const quantity = quantityFor(quota, item, category);
        if (quantity === 0) continue;
        const key = `${quota.id}\u0000${scopeKeys[quota.scope]}`;
        const windowMs = quota.window * 1000;
        if (this.#counts.current(key, windowMs, now) + quantity > quota.limit) {
          over = quota;
          break;
        }
        charges.push({ key, quantity, windowMs });
      }
      if (over !== undefined) {
        hit.add(over);
        dropped.push({ type: item.type, category });
        if (category === 'error') eventDropped = true;
        continue;
      }
      for (const { key, quantity, windowMs } of charges) this.#counts.add(key, quantity, windowMs, now);
      kept.push(item);
    }
    if (dropped.length === 0) return { items, discarded: [], dropped, limits: [] };
    // An event's attachments go with it, as Relay's EnvelopeLimiter drops them.
    const items2 = eventDropped ? withoutAttachments(kept, dropped) : kept;
    const limits = [...hit].map((quota) => ({
      seconds: secondsLeft(quota.window * 1000, now),
      categories: quota.categories,
      scope: quota.scope,
      reasonCode: quota.reasonCode,
    }));
    return { items: items2, discarded: outcomes(items, items2, dropped), dropped, limits };
  }
}

function withoutAttachments(kept: EnvelopeItem[], dropped: QuotaDecision['dropped']): EnvelopeItem[] {
  return kept.filter((item) => {
    if (item.type !== 'attachment') return true;
    dropped.push({ type: 'attachment', category: 'attachment' });
    return false;
  });
}

/** Client-report outcomes: items per category, attachments also in bytes (Relay counts both). */
function outcomes(before: EnvelopeItem[], after: EnvelopeItem[], dropped: QuotaDecision['dropped']): Discarded[] {
  const counts = new Map<string, number>();
  const add = (category: string, quantity: number) => counts.set(category, (counts.get(category) ?? 0) + quantity);
  for (const { category } of dropped) if (category !== 'attachment') add(category, 1);
  const left = new Set(after);
  for (const item of before) {
    if (item.type !== 'attachment' || left.has(item)) continue;
    add('attachment', item.payload.length);
    add('attachment_item', 1);
  }
  return [...counts].map(([category, quantity]) => ({ reason: QUOTA_DROP_REASONS.quota, category, quantity }));
}

/**
 * Retry-After and X-Sentry-Rate-Limits as Sentry answers a quota: `seconds:categories:scope:reason_code`. The
 * grammar's scopes are organization, project and key (SDKs ignore it); a network quota is announced as `key`.
 */
export function quotaHeaders(limits: readonly ActiveLimit[]): Record<string, string> {
  if (limits.length === 0) return {};
  const parts = limits.map(
    (l) => `${l.seconds}:${l.categories.join(';')}:${l.scope === 'project' ? 'project' : 'key'}:${l.reasonCode}`,
  );
  return {
    'retry-after': String(Math.max(...limits.map((l) => l.seconds))),
    'x-sentry-rate-limits': parts.join(', '),
  };
}

/** `into` with `extra`'s limits added: entries joined, the longer Retry-After kept (upstream's and ours together). */
export function mergeLimitHeaders(
  into: Record<string, string>,
  extra: Readonly<Record<string, string>>,
): Record<string, string> {
  const limits = [into['x-sentry-rate-limits'], extra['x-sentry-rate-limits']].filter((v) => v !== undefined);
  if (limits.length > 0) into['x-sentry-rate-limits'] = limits.join(', ');
  const retry = Math.max(Number(into['retry-after'] ?? 0), Number(extra['retry-after'] ?? 0));
  if (retry > 0) into['retry-after'] = String(retry);
  return into;
}
