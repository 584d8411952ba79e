// Route code loading: each view loaded once, a failed or late chunk retried by the next attempt, and once the router
// exists a failure turns the navigation into a full page load of its target. The router is React Router's own.

import { watchFullLoads } from '@app/test-kit/full-loads';
import { createMemoryRouter, type DataRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRouteCode, RouteCodeUnavailable } from '../../src/client/navigation/lazy-route.ts';
import { buildClientRoutes } from '../../src/framework/browser/client-routes.ts';
import type { RouteEntry, RouteView, ViewModules } from '../../src/framework/shared/route-entry.ts';

const entry: RouteEntry = { id: 'item', path: 'item', folder: 'item', view: 'item.tsx', meta: {} };
const home: RouteEntry = { id: 'home', index: true, folder: '_index', view: 'home.tsx', meta: {} };
const table: RouteEntry[] = [
  { id: 'root', path: '/', folder: '', view: 'root.tsx', meta: {}, children: [home, entry] },
];
const view: RouteView = { Component: () => null };

/** View modules whose `item.tsx` chunk answers as `arrive` says, counting the attempts. */
function viewsWith(arrive: (attempt: number) => Promise<RouteView>) {
  let attempts = 0;
  const views: ViewModules = {
    'root.tsx': async () => view,
    'home.tsx': async () => view,
    'item.tsx': () => arrive(++attempts),
  };
  return { views, attempts: () => attempts };
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('route code', () => {
  it('loads a view once however often it is asked for, and warms the same load', async () => {
    const { views, attempts } = viewsWith(async () => view);
    const code = createRouteCode(views);
    code.warm(entry);
    expect(await code.load(entry)).toBe(view);
    expect(await code.load(entry)).toBe(view);
    expect(attempts()).toBe(1);
  });

  it('retries a chunk that failed (a later attempt loads it), before the router exists passing the failure on', async () => {
    const { views, attempts } = viewsWith(async (attempt) => {
      if (attempt === 1) throw new TypeError('Failed to fetch dynamically imported module');
      return view;
    });
    const code = createRouteCode(views);
    await expect(code.load(entry)).rejects.toThrow('Failed to fetch');
    expect(await code.load(entry)).toBe(view);
    expect(attempts()).toBe(2);
  });

  it('fails a chunk that has not arrived within the timeout, and a warm-up that failed is retried', async () => {
    const { views, attempts } = viewsWith((attempt) => (attempt < 3 ? new Promise(() => {}) : Promise.resolve(view)));
    const code = createRouteCode(views, 20);
    code.warm(entry);
    await vi.waitFor(() => expect(attempts()).toBe(1));
    // The warm-up's failure is not an unhandled rejection and not cached.
    await new Promise((resolve) => setTimeout(resolve, 40));
    const late = code.load(entry);
    await expect(late).rejects.toThrow(RouteCodeUnavailable);
    await expect(late).rejects.toThrow('code of route item did not arrive within 20 ms');
    expect(await code.load(entry)).toBe(view);
    expect(attempts()).toBe(3);
  });
});

describe('route code under a router', () => {
  async function routerWith(views: ViewModules) {
    const code = createRouteCode(views, 200);
    const router: DataRouter = createMemoryRouter(buildClientRoutes(table, (e) => code.load(e)));
    code.attach(router);
    await vi.waitFor(() => expect(router.state.initialized).toBe(true));
    return router;
  }

  it('turns a navigation whose code cannot load into a full page load of its target', async () => {
    const assigned = watchFullLoads();
    const router = await routerWith(
      viewsWith(async () => {
        throw new TypeError('Failed to fetch dynamically imported module');
      }).views,
    );
    void router.navigate('/item?from=test');
    // Once, though both lazy parts of the route (its Component and its handle) fail: a second assign() would restart
    // the load.
    await vi.waitFor(() => expect(assigned).toEqual(['/item?from=test']));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(assigned).toEqual(['/item?from=test']);
    // The router stays on its way out (no error screen) while the page unloads.
    expect(router.state.navigation.state).toBe('loading');
    expect(router.state.errors).toBeNull();
    router.dispose();
  });

  it('does the same for code that is too late', async () => {
    const assigned = watchFullLoads();
    const router = await routerWith(viewsWith(() => new Promise(() => {})).views);
    void router.navigate('/item');
    await vi.waitFor(() => expect(assigned).toEqual(['/item']), { timeout: 2_000 });
    router.dispose();
  });

  it('reloads nothing when no navigation is pending (a prefetch warming code, say)', async () => {
    const assigned = watchFullLoads();
    const { views } = viewsWith(async () => {
      throw new TypeError('Failed to fetch dynamically imported module');
    });
    const code = createRouteCode(views);
    const router = createMemoryRouter(buildClientRoutes(table, (e) => code.load(e)));
    code.attach(router);
    await vi.waitFor(() => expect(router.state.initialized).toBe(true));
    await expect(code.load(entry)).rejects.toThrow('Failed to fetch');
    expect(assigned).toEqual([]);
    router.dispose();
  });
});
