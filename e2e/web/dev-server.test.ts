// `npm run dev` for the web service: Vite in front of Fastify, with React Fast Refresh. Run from a copy of the
// service (in the repository's ignored .cache/, two levels down like services/web, so packages and the shared
// tsconfig resolve) so the test can edit a view without touching the sources other suites read: the page shows
// the edit without reloading.
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type ServiceProcess, spawnService } from '@app/test-kit';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSameDocument, launchChromium, markDocument, waitForHydration, watchConsole } from '../support/browser.ts';

const webDir = fileURLToPath(new URL('../../services/web/', import.meta.url));
const copy = fileURLToPath(new URL('../../.cache/web-dev-e2e/', import.meta.url));

let dev: ServiceProcess;
let browser: Browser;

beforeAll(async () => {
  rmSync(copy, { recursive: true, force: true });
  for (const part of ['src', 'build', 'vite.config.ts', 'package.json', 'tsconfig.json']) {
    cpSync(`${webDir}${part}`, `${copy}${part}`, { recursive: true });
  }
  [dev, browser] = await Promise.all([
    spawnService(`${copy}src/server/dev.ts`, { cwd: copy, startTimeoutMs: 60_000 }),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await dev?.kill();
  rmSync(copy, { recursive: true, force: true });
});

describe('web dev server', () => {
  it('renders and hydrates a page, then shows an edited view without a reload (Fast Refresh)', async () => {
    const page = await browser.newPage();
    const seen = watchConsole(page);
    await page.goto(dev.url);
    await waitForHydration(page);
    expect(await page.textContent('main h1')).toBe('Welcome');
    await markDocument(page);

    const view = `${copy}src/app/routes/_index/view.tsx`;
    writeFileSync(view, readFileSync(view, 'utf8').replace('<h1>Welcome</h1>', '<h1>Welcome, edited</h1>'));
    await expect.poll(() => page.textContent('main h1'), { timeout: 20_000 }).toBe('Welcome, edited');
    expect(await isSameDocument(page)).toBe(true);
    expect(seen.errors).toEqual([]);
  });

  it('reloads the page, without errors, for an edit of browser code that is no component', async () => {
    const page = await browser.newPage();
    const seen = watchConsole(page);
    await page.goto(`${dev.url}/catalog`);
    await waitForHydration(page);
    await markDocument(page);
    // Browser-only code that is no component (server-side modules need a restart of the dev server: see docs/configuration.md).
    const helper = `${copy}src/client/navigation/prefetch.ts`;
    writeFileSync(helper, `${readFileSync(helper, 'utf8')}\n// edited by the dev-server test\n`);
    await expect.poll(() => isSameDocument(page).catch(() => true), { timeout: 20_000 }).toBe(false);
    await waitForHydration(page);
    expect(seen.errors).toEqual([]);
  });
});
