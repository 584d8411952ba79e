// The web service under test: an app built with test configuration and a stand-in asset manifest, for one test
// (appForTest) or a whole file or block (withWeb).
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, onTestFinished } from 'vitest';
import { type BuildOptions, buildApp, type WebApp } from '../src/server/app.ts';
import { loadConfig } from '../src/server/config.ts';
import type { Assets } from '../src/server/pages/assets.ts';

/** Stand-in for a build's manifest: the tests check which views a page asks to preload. */
export const fakeAssets: Assets = {
  entry: '/assets/entry.js',
  css: ['/assets/entry.css'],
  preloadFor: (views) => views.map((view) => `/assets/${view.replace(/\W/g, '_')}.js`),
};

/** The service built and ready (not listening); the caller closes it. */
export async function testApp(env: Record<string, string> = {}, options: Partial<BuildOptions> = {}): Promise<WebApp> {
  // Load shedding off unless a test turns it on: a test worker's event loop lags whenever a neighbour compiles.
  const defaults = { LOG_LEVEL: 'silent', DIAGNOSTICS: '1', SHED_EVENT_LOOP_DELAY_MS: '0', SHED_TURN_WAIT_MS: '0' };
  const web = await buildApp(loadConfig({ ...defaults, ...env }), { assets: fakeAssets, ...options });
  await web.app.ready();
  return web;
}

/** The service for one test, called inside it: closed when the test finishes, whether it passed or not. */
export async function appForTest(env: Record<string, string> = {}, options: Partial<BuildOptions> = {}) {
  const web = await testApp(env, options);
  onTestFinished(() => web.app.close());
  return web;
}

export interface WebUnderTest extends WebApp {
  /** With `listen`: the loopback port and `http://127.0.0.1:<port>`. */
  port: number;
  url: string;
}

/**
 * The service for the tests of a file or a describe block: built (and with `listen`, listening on loopback) before
 * them, closed after them. Returns the handle their tests read; its fields are set once the tests run.
 */
export function withWeb(
  env: Record<string, string> = {},
  options: Partial<BuildOptions> & { listen?: boolean } = {},
): WebUnderTest {
  const under = {} as WebUnderTest;
  beforeAll(async () => {
    const { listen, ...build } = options;
    Object.assign(under, await testApp(env, build));
    if (!listen) return;
    await under.app.listen({ port: 0, host: '127.0.0.1' });
    under.port = (under.app.server.address() as AddressInfo).port;
    under.url = `http://127.0.0.1:${under.port}`;
  });
  afterAll(() => under.app?.close());
  return under;
}

export const pageData = (routes?: string) => ({
  'x-page-data': '1',
  ...(routes ? { 'x-page-data-routes': routes } : {}),
});
