// The prefetch cache on a fake clock (fresh, stale, expired, bounded) and the queue that runs prefetches.
import { describe, expect, it } from 'vitest';
import { createPrefetchCache, createTaskQueue } from '../../src/client/navigation/prefetch-cache.ts';
import { PREFETCH_CONCURRENCY, PREFETCH_EXPIRE_MS, PREFETCH_FRESH_MS } from '../../src/framework/shared/timing.ts';

function clockAt(start = 1_000_000) {
  const clock = { now: start, advance: (ms: number) => (clock.now += ms) };
  return clock;
}

describe('prefetch cache', () => {
  it.each([
    { age: 0, freshness: 'fresh', used: true },
    { age: PREFETCH_FRESH_MS - 1, freshness: 'fresh', used: true },
    { age: PREFETCH_FRESH_MS, freshness: 'stale', used: false },
    { age: PREFETCH_EXPIRE_MS - 1, freshness: 'stale', used: false },
    { age: PREFETCH_EXPIRE_MS, freshness: 'missing', used: false },
  ])('an entry $age ms old is $freshness (used by a navigation: $used)', ({ age, freshness, used }) => {
    const clock = clockAt();
    const cache = createPrefetchCache<string>({ now: () => clock.now });
    cache.put('/a', ['root', 'a'], 'data');
    clock.advance(age);
    expect(cache.freshness('/a')).toBe(freshness);
    expect(cache.takeFresh('/a', ['a'])).toBe(used ? 'data' : undefined);
  });

  it('evicts expired entries on sweep', () => {
    const clock = clockAt();
    const cache = createPrefetchCache<string>({ now: () => clock.now });
    cache.put('/old', ['a'], 'old');
    clock.advance(PREFETCH_EXPIRE_MS - 10_000);
    cache.put('/new', ['a'], 'new');
    clock.advance(10_000);
    expect(cache.sweep()).toBe(1);
    expect(cache.freshness('/new')).toBe('fresh');
    expect(cache.freshness('/old')).toBe('missing');
  });

  it('is used only when it covers every route the navigation needs', () => {
    const cache = createPrefetchCache<string>({ now: () => 0 });
    cache.put('/a', ['a'], 'data');
    expect(cache.takeFresh('/a', ['root', 'a'])).toBeUndefined();
    expect(cache.takeFresh('/a', ['a'])).toBe('data');
  });

  it('stays bounded, dropping the oldest entries first', () => {
    const cache = createPrefetchCache<number>({ now: () => 0, maxEntries: 3 });
    for (let i = 0; i < 5; i++) cache.put(`/${i}`, ['a'], i);
    expect(cache.size).toBe(3);
    expect(cache.freshness('/0')).toBe('missing');
    expect(cache.freshness('/1')).toBe('missing');
    expect(cache.takeFresh('/4', ['a'])).toBe(4);
  });

  it('starts a refreshed entry anew', () => {
    const clock = clockAt();
    const cache = createPrefetchCache<string>({ now: () => clock.now });
    cache.put('/a', ['a'], 'first');
    clock.advance(PREFETCH_FRESH_MS + 1);
    cache.put('/a', ['a'], 'second');
    expect(cache.takeFresh('/a', ['a'])).toBe('second');
  });
});

describe('prefetch queue', () => {
  it(`runs at most ${PREFETCH_CONCURRENCY} tasks at once, the rest in order, and skips duplicates`, async () => {
    const queue = createTaskQueue(PREFETCH_CONCURRENCY);
    const started: number[] = [];
    const release: Array<() => void> = [];
    let maxRunning = 0;
    for (let i = 0; i < 8; i++) {
      queue.push(`/${i}`, () => {
        started.push(i);
        maxRunning = Math.max(maxRunning, queue.running);
        return new Promise<void>((resolve) => release.push(resolve));
      });
    }
    expect(queue.push('/7', async () => {})).toBe(false);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(queue.waiting).toBe(3);
    release.shift()?.();
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    while (release.length) {
      release.shift()?.();
      await new Promise((r) => setTimeout(r, 0));
    }
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(maxRunning).toBe(PREFETCH_CONCURRENCY);
    expect(queue.running).toBe(0);
    // A finished key can be queued again.
    expect(queue.push('/0', async () => {})).toBe(true);
  });

  it('keeps going after a task fails', async () => {
    const queue = createTaskQueue(1);
    const ran: string[] = [];
    queue.push('bad', async () => {
      ran.push('bad');
      throw new Error('x');
    });
    queue.push('good', async () => {
      ran.push('good');
    });
    await new Promise((r) => setTimeout(r, 0));
    expect(ran).toEqual(['bad', 'good']);
  });
});
