// Item types mapped to Sentry's data categories, the unit rate limits and client reports count in.

/**
 * Sentry's data category of an item type: what rate limits (X-Sentry-Rate-Limits) and outcomes count in
 * (relay-server's `ItemType` → `DataCategory`). Items of a type not listed here are limited only by limits on
 * every category. Client reports are never limited. A Map: item types are client text, and a plain object would
 * answer `constructor` or `__proto__` from its prototype.
 */
const CATEGORY: ReadonlyMap<string, string> = new Map(
  Object.entries({
    event: 'error',
    transaction: 'transaction',
    span: 'span',
    otel_span: 'span',
    session: 'session',
    sessions: 'session',
    attachment: 'attachment',
    feedback: 'feedback',
    user_report: 'user_report_v2',
    replay_event: 'replay',
    replay_recording: 'replay',
    replay_video: 'replay',
    profile: 'profile',
    profile_chunk: 'profile_chunk',
    check_in: 'monitor',
    log: 'log_item',
    trace_metric: 'trace_metric',
    statsd: 'metric_bucket',
    metric_buckets: 'metric_bucket',
    security: 'security',
    raw_security: 'security',
  }),
);

/** Item types the relay knows: those with a category, and client reports. */
export const KNOWN_ITEM_TYPES: ReadonlySet<string> = new Set([...CATEGORY.keys(), 'client_report']);

export const KNOWN_CATEGORIES = new Set([...CATEGORY.values(), 'default', 'attachment_item', 'profile_chunk_ui']);

/** The category of an item, 'internal' for client reports, undefined when unknown. */
export function itemCategory(type: string, header?: Readonly<Record<string, unknown>>): string | undefined {
  if (type === 'client_report') return 'internal';
  if (type === 'profile_chunk' && header?.platform !== undefined && header.platform !== 'javascript') {
    return 'profile_chunk';
  }
  return CATEGORY.get(type);
}
