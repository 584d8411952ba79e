// The timing constants of the specification (§9), named after what they mean. One place, used by client and tests.

export const PREFETCH_CONCURRENCY = 5;
/** A prefetched page is used by a navigation without a request while younger than this. */
export const PREFETCH_FRESH_MS = 30_000;
/** After this a prefetched entry is evicted (between fresh and expired it is stale: refetched, code kept warm). */
export const PREFETCH_EXPIRE_MS = 5 * 60_000;
/** Bound on cached entries, so a page full of links cannot grow the cache without limit. */
export const PREFETCH_MAX_ENTRIES = 50;
/** Hover must last this long before a prefetch starts (a cursor crossing a link is not intent). */
export const PREFETCH_INTENT_DELAY_MS = 60;
/** Route code that has not arrived by then → full page navigation to the target. */
export const ROUTE_CODE_TIMEOUT_MS = 3_800;

/** Sentry browser tracing options from the specification. */
export const TRACING = {
  idleTimeout: 1_000,
  finalTimeout: 30_000,
  childSpanTimeout: 15_000,
  maxBreadcrumbs: 100,
  transportBufferSize: 64,
} as const;
