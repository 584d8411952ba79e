// Shared setup for the web's tests: an app built with test configuration and a stand-in asset manifest.
import { onTestFinished } from 'vitest';
import { type BuildOptions, buildApp, type WebApp } from '../src/server/app.ts';
import { loadConfig } from '../src/server/config.ts';
import type { Assets } from '../src/server/pages/assets.ts';

/** Stand-in for a build's manifest: the tests check which views a page asks to preload. */
export const fakeAssets: Assets = {
  entry: '/assets/entry.js',
  css: ['/assets/entry.css'],
  preloadFor: (views) => views.map((view) => `/assets/${view.replace(/\W/g, '_')}.js`),
};

/** The service for a whole file or block: built in beforeAll, closed in afterAll. */
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

export const pageData = (routes?: string) => ({
  'x-page-data': '1',
  ...(routes ? { 'x-page-data-routes': routes } : {}),
});
