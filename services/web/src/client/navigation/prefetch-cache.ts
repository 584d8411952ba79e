// Prefetched page data, by URL. Pure: the clock is passed in, so the table tests control time.
//   fresh   (age < 30 s)        a navigation uses it without a request
//   stale   (30 s ≤ age < 5 min) a navigation fetches again; a new intent prefetches again
//   expired (age ≥ 5 min)       evicted
// The cache is bounded: adding beyond the limit evicts the oldest entry.
import { PREFETCH_EXPIRE_MS, PREFETCH_FRESH_MS, PREFETCH_MAX_ENTRIES } from '../../framework/shared/timing.ts';

export interface CacheEntry<T> {
  /** The route ids whose loader data the entry holds. */
  routeIds: readonly string[];
  value: T;
  createdAt: number;
}

export type Freshness = 'fresh' | 'stale' | 'missing';

export interface PrefetchCacheOptions {
  now: () => number;
  freshMs?: number;
  expireMs?: number;
  maxEntries?: number;
}

export interface PrefetchCache<T> {
  put(url: string, routeIds: readonly string[], value: T): void;
  /** The value for a navigation that needs these routes' data, only while fresh and covering all of them. */
  takeFresh(url: string, routeIds: readonly string[]): T | undefined;
  freshness(url: string): Freshness;
  delete(url: string): void;
  clear(): void;
  /** Evicts expired entries; returns how many remain. */
  sweep(): number;
  readonly size: number;
}

export function createPrefetchCache<T>(options: PrefetchCacheOptions): PrefetchCache<T> {
  const freshMs = options.freshMs ?? PREFETCH_FRESH_MS;
  const expireMs = options.expireMs ?? PREFETCH_EXPIRE_MS;
  const maxEntries = options.maxEntries ?? PREFETCH_MAX_ENTRIES;
  // A Map iterates in insertion order, so the first key is the oldest entry.
  const entries = new Map<string, CacheEntry<T>>();
  const age = (entry: CacheEntry<T>) => options.now() - entry.createdAt;
  const live = (url: string) => {
    const entry = entries.get(url);
    if (entry && age(entry) >= expireMs) {
      entries.delete(url);
      return undefined;
    }
    return entry;
  };
  return {
    put(url, routeIds, value) {
      entries.delete(url);
      entries.set(url, { routeIds, value, createdAt: options.now() });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
    },
    takeFresh(url, routeIds) {
      const entry = live(url);
      if (!entry || age(entry) >= freshMs) return undefined;
      return routeIds.every((id) => entry.routeIds.includes(id)) ? entry.value : undefined;
    },
    freshness(url) {
      const entry = live(url);
      if (!entry) return 'missing';
      return age(entry) < freshMs ? 'fresh' : 'stale';
    },
    delete(url) {
      entries.delete(url);
    },
    clear() {
      entries.clear();
    },
    sweep() {
      for (const url of [...entries.keys()]) live(url);
      return entries.size;
    },
    get size() {
      return entries.size;
    },
  };
}

/** Runs at most `concurrency` tasks at once, the rest in arrival order; a key already queued or running is skipped. */
export interface TaskQueue {
  push(key: string, task: () => Promise<unknown>): boolean;
  readonly running: number;
  readonly waiting: number;
}

export function createTaskQueue(concurrency: number): TaskQueue {
  const waiting: Array<{ key: string; task: () => Promise<unknown> }> = [];
  const keys = new Set<string>();
  let running = 0;
  const next = () => {
    while (running < concurrency && waiting.length > 0) {
      const job = waiting.shift();
      if (!job) break;
      running++;
      job
        .task()
        .catch(() => {})
        .finally(() => {
          running--;
          keys.delete(job.key);
          next();
        });
    }
  };
  return {
    push(key, task) {
      if (keys.has(key)) return false;
      keys.add(key);
      waiting.push({ key, task });
      next();
      return true;
    },
    get running() {
      return running;
    },
    get waiting() {
      return waiting.length;
    },
  };
}
