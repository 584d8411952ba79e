// The client router's data strategy with React Router's own router, the app's route table and the real service on a
// loopback port: what the browser's navigations and form posts ask the server, and what the router does with it.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { watchFullLoads } from '@app/test-kit/full-loads';
import {
  type UNSAFE_createMemoryHistory as CreateMemoryHistory,
  UNSAFE_createMemoryHistory as createMemoryHistory,
  createPath,
  UNSAFE_createRouter as createRouter,
  type DataRouter,
  isRouteErrorResponse,
} from 'react-router';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createDataStrategy, type PrefetchSource } from '../../src/client/navigation/data-strategy.ts';
import { createRouteCode } from '../../src/client/navigation/lazy-route.ts';
import { createPrefetcher } from '../../src/client/navigation/prefetch.ts';
import { buildClientRoutes, clientRouteTable, clientViews } from '../../src/framework/browser/client-routes.ts';
import { enabledRoutes, flattenRoutes } from '../../src/framework/shared/route-entry.ts';
import type { WebApp } from '../../src/server/app.ts';
import { testApp } from '../with-web.ts';

type History = ReturnType<typeof CreateMemoryHistory>;
const originOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

let web: WebApp;
let site: string;
/** Page-data requests the service received: method, URL and the routes asked for. */
let asked: string[] = [];
beforeAll(async () => {
  web = await testApp({ CATALOG_RELATED_DELAY_MS: '0' });
  await web.app.listen({ port: 0, host: '127.0.0.1' });
  site = originOf(web.app.server);
  web.app.server.on('request', (req: IncomingMessage) => {
    if (req.headers['x-page-data'] === '1')
      asked.push(`${req.method} ${req.url} [${req.headers['x-page-data-routes']}]`);
  });
});
afterAll(() => web?.app.close());
beforeEach(() => {
  asked = [];
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const table = enabledRoutes(clientRouteTable, true);
const entries = new Map(flattenRoutes(table).map((entry) => [entry.id, entry]));

/** The browser's router as start.tsx makes it, at `origin` (a memory history whose URLs are on that origin). */
async function routerAt(origin: string, prefetched: PrefetchSource, beforeRequest?: () => Promise<unknown>) {
  const history: History = createMemoryHistory({ initialEntries: ['/'] });
  history.createURL = (to) => new URL(typeof to === 'string' ? to : createPath(to), origin);
  const routeCode = createRouteCode(clientViews);
  const routes = buildClientRoutes(table, (entry) => routeCode.load(entry));
  const router: DataRouter = createRouter({
    routes,
    history,
    dataStrategy: createDataStrategy(prefetched, beforeRequest),
  }).initialize();
  onTestFinished(() => router.dispose());
  await vi.waitFor(() => expect(router.state.initialized).toBe(true));
  return { router, routes, routeCode };
}

const nothingPrefetched: PrefetchSource = { takeFresh: () => undefined, clear: () => {} };

describe('navigations', () => {
  it('ask once per navigation, for the routes whose loaders must run, and give each route its data', async () => {
    const { router } = await routerAt(site, nothingPrefetched);
    expect(asked).toEqual(['GET / [root]']);
    await router.navigate('/catalog');
    expect(asked).toEqual(['GET / [root]', 'GET /catalog [catalog]']);
    const list = router.state.loaderData.catalog as { items: unknown[] };
    expect(list.items.length).toBeGreaterThan(0);
    expect(router.state.loaderData.root).toBeDefined();
  });

  it("put a route's error (a missing item) at that route, as a route error response", async () => {
    const { router } = await routerAt(site, nothingPrefetched);
    await router.navigate('/catalog/no-such-item');
    const error = router.state.errors?.['catalog.$slug'];
    expect(isRouteErrorResponse(error) && error.status).toBe(404);
  });

  it('follow a redirect signal (a moved item) to its target', async () => {
    const { router } = await routerAt(site, nothingPrefetched);
    await router.navigate('/catalog/old-amber-lamp');
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/catalog/amber-lamp'));
    await vi.waitFor(() => expect(router.state.navigation.state).toBe('idle'));
    expect((router.state.loaderData['catalog.$slug'] as { item: { name: string } }).item.name).toBe('Amber Lamp');
  });

  it('use a fresh prefetch without a request, and wait in beforeRequest only for requests of their own', async () => {
    vi.stubGlobal('window', { location: new URL(`${site}/`) });
    const routeCode = createRouteCode(clientViews);
    const prefetcher = createPrefetcher({
      routes: buildClientRoutes(table, (entry) => routeCode.load(entry)),
      entries,
      routeCode,
    });
    let waits = 0;
    const { router } = await routerAt(site, prefetcher, async () => {
      waits++;
    });
    prefetcher.prefetch(`${site}/catalog/amber-lamp`);
    await vi.waitFor(() => expect(asked).toContain('GET /catalog/amber-lamp [root,catalog.$slug]'));
    await router.navigate('/catalog/amber-lamp');
    expect((router.state.loaderData['catalog.$slug'] as { item: { name: string } }).item.name).toBe('Amber Lamp');
    expect(asked).toEqual(['GET / [root]', 'GET /catalog/amber-lamp [root,catalog.$slug]']);
    expect(waits).toBe(1); // the first load's request only
  });
});

describe('form posts', () => {
  it('post the form once as page data, drop what was prefetched, and follow the redirect signal', async () => {
    let cleared = 0;
    const { router } = await routerAt(site, { takeFresh: () => undefined, clear: () => cleared++ });
    const formData = new FormData();
    formData.set('pageSize', '10');
    formData.set('theme', 'dark');
    await router.navigate('/preferences', { formMethod: 'post', formData });
    await vi.waitFor(() => expect(router.state.navigation.state).toBe('idle'));
    expect(router.state.location.search).toBe('?saved=1');
    expect(asked.filter((line) => line.startsWith('POST'))).toEqual(['POST /preferences [preferences]']);
    expect(cleared).toBe(1);
  });

  it("give an invalid form's errors to the route as action data, with the status", async () => {
    const { router } = await routerAt(site, nothingPrefetched);
    await router.navigate('/preferences');
    const formData = new FormData();
    formData.set('pageSize', '0');
    await router.navigate('/preferences', { formMethod: 'post', formData });
    expect(router.state.actionData?.preferences).toBeTruthy();
    expect(router.state.location.search).toBe('');
  });
});

describe('an answer that is not page data', () => {
  let proxy: Server;
  beforeAll(async () => {
    // A gateway in front answering 502 with its own HTML page: for the first load's data too.
    proxy = createServer((_req, res) =>
      res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>'),
    );
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
  });
  afterAll(() => void proxy?.close());

  it('turns the navigation into a full page load of its target', async () => {
    const assigned = watchFullLoads();
    const history: History = createMemoryHistory({ initialEntries: ['/catalog'] });
    const target = originOf(proxy);
    history.createURL = (to) => new URL(typeof to === 'string' ? to : createPath(to), target);
    const routeCode = createRouteCode(clientViews);
    const router = createRouter({
      routes: buildClientRoutes(table, (entry) => routeCode.load(entry)),
      history,
      dataStrategy: createDataStrategy(nothingPrefetched),
    }).initialize();
    onTestFinished(() => router.dispose());
    await vi.waitFor(() => expect(assigned).toEqual([`${target}/catalog`]));
    expect(router.state.errors).toBeNull();
  });
});
