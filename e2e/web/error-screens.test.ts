// The error screens in Chromium, on first load and after a client navigation, each audited by axe; and the open
// feedback form audited by axe. The web service reports to a capture server so the feedback widget is on.
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { runAxe } from '../support/axe.ts';
import { isSameDocument, markDocument, screenshot, waitForHydration } from '../support/browser.ts';
import { reportingWebSuite } from '../support/web.ts';

const SERVER_TEXT =
  'Application error: a server-side exception has occurred (see the server logs for more information)';
const CLIENT_TEXT =
  'Application error: a client-side exception has occurred (see the browser console for more information)';

let page: Page;

const suite = reportingWebSuite({ DIAGNOSTICS: '1', SENTRY_TRACES_SAMPLE_RATE: '0' });
afterEach(async () => {
  await page?.close();
});

async function expectNoSeriousAxeViolations(): Promise<void> {
  const axe = await runAxe(page);
  const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
}

/** path, the screen's heading, whether it shows a digest, the document title. */
const SCREENS = [
  ['/diagnostics/server-error', SERVER_TEXT, true, 'Application error'],
  ['/diagnostics/render-error', SERVER_TEXT, true, 'Application error'],
  ['/diagnostics/status-500', SERVER_TEXT, false, 'Application error'],
  ['/diagnostics/unavailable', 'Service unavailable', false, 'Service unavailable'],
  ['/catalog/no-such-item', 'Page not found', false, 'Page not found'],
] as const;

describe('error screens', () => {
  it.each(SCREENS)(
    '%s on first load: its screen, digest and title, no serious axe violation',
    async (path, heading, digest, title) => {
      page = await suite.browser.newPage();
      await page.goto(`${suite.web.url}${path}`);
      await waitForHydration(page);
      expect(await page.textContent('main h1')).toBe(heading);
      expect(await page.locator('[data-testid="digest"]').count()).toBe(digest ? 1 : 0);
      expect(await page.title()).toBe(title);
      await expectNoSeriousAxeViolations();
      await screenshot(page, `error-screen${path.replaceAll('/', '-')}`);
    },
  );

  // A render error after a client navigation happens in the browser: the client screen (navigation.test.ts).
  const AFTER_NAVIGATION = SCREENS.filter(([path]) => path !== '/diagnostics/render-error');
  it.each(AFTER_NAVIGATION)(
    '%s after a client navigation: the same screen and title',
    async (path, heading, digest, title) => {
      page = await suite.browser.newPage();
      await page.goto(`${suite.web.url}/diagnostics/ignored-error`);
      await waitForHydration(page);
      await markDocument(page);
      await page.locator(`main nav a[href="${path}"]`).click();
      await expect.poll(() => page.textContent('main h1')).toBe(heading);
      expect(await isSameDocument(page)).toBe(true);
      expect(await page.locator('[data-testid="digest"]').count()).toBe(digest ? 1 : 0);
      await expect.poll(() => page.title()).toBe(title);
      await expectNoSeriousAxeViolations();
    },
  );

  it('the client exception screen has no serious axe violation', async () => {
    page = await suite.browser.newPage();
    await page.goto(`${suite.web.url}/diagnostics/client-error`);
    await waitForHydration(page);
    await page.click('text=Throw in the browser');
    await expect.poll(() => page.textContent('main h1')).toBe(CLIENT_TEXT);
    await expectNoSeriousAxeViolations();
  });
});

describe('feedback form', () => {
  it('open, it has no serious axe violation', async () => {
    page = await suite.browser.newPage();
    await page.goto(`${suite.web.url}/`);
    await waitForHydration(page);
    const trigger = page.locator('#sentry-feedback .widget__actor');
    await trigger.waitFor({ state: 'visible', timeout: 10_000 });
    await trigger.click();
    await page.locator('#sentry-feedback textarea[name="message"]').waitFor();
    await expectNoSeriousAxeViolations();
    await screenshot(page, 'feedback-form-axe');
  });
});
