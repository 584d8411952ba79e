// Debian's Chromium through playwright-core (never a downloaded browser), and the checks every page gets.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page, Request } from 'playwright-core';

export { launchChromium } from '@app/test-kit/chromium';

/** Console errors and warnings, page errors, and React's hydration complaints, collected per page. */
export function watchConsole(page: Page): { errors: string[]; warnings: string[] } {
  const seen = { errors: [] as string[], warnings: [] as string[] };
  page.on('console', (message) => {
    if (message.type() === 'error') seen.errors.push(message.text());
    if (message.type() === 'warning') seen.warnings.push(message.text());
  });
  page.on('pageerror', (error) => seen.errors.push(`pageerror: ${error.message}`));
  return seen;
}

const artifacts = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
/** Screenshots for people to look at (test-artifacts/ is gitignored; CI keeps it as an artifact). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: `${artifacts}${name}.png`, fullPage: true });
}

/** Resolves once the client router has hydrated. */
export async function waitForHydration(page: Page): Promise<void> {
  await page.waitForFunction(() => (window as { __appHydrated?: boolean }).__appHydrated === true);
}

/** Resolves once the Sentry SDK, loaded after hydration, is set up (performance measure "app:sentry-load"). */
export async function waitForSentry(page: Page): Promise<void> {
  await page.waitForFunction(() => performance.getEntriesByName('app:sentry-load').length > 0);
}

/** Marks the page's document: the mark survives client navigations and hot updates, and is gone after a full load. */
export async function markDocument(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as { __sameDocument?: boolean }).__sameDocument = true;
  });
}

/** True while the page still shows the document `markDocument` marked. */
export function isSameDocument(page: Page): Promise<boolean> {
  return page.evaluate(() => (window as { __sameDocument?: boolean }).__sameDocument === true);
}

/** A new page whose console is watched and whose page-data requests (X-Page-Data: 1) are collected. */
export async function watchedPage(
  browser: Browser,
): Promise<{ page: Page; seen: ReturnType<typeof watchConsole>; pageDataRequests: Request[] }> {
  const page = await browser.newPage();
  const pageDataRequests: Request[] = [];
  page.on('request', (request) => {
    if (request.headers()['x-page-data'] === '1') pageDataRequests.push(request);
  });
  return { page, seen: watchConsole(page), pageDataRequests };
}
