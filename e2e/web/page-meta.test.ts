// Head metadata in Chromium: a client navigation updates description, canonical URL and Open Graph like the title.
import type { ServiceProcess } from '@app/test-kit';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isSameDocument, launchChromium, markDocument, waitForHydration } from '../support/browser.ts';
import { startWeb } from '../support/web.ts';

let web: ServiceProcess;
let browser: Browser;
beforeAll(async () => {
  [web, browser] = await Promise.all([startWeb(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await web?.kill();
});

it('updates the head metadata on a client navigation', async () => {
  const page = await browser.newPage();
  await page.goto(`${web.url}/`);
  await waitForHydration(page);
  await markDocument(page);
  const head = () =>
    page.evaluate(() => ({
      title: document.title,
      description: document.querySelector('meta[name="description"]')?.getAttribute('content'),
      ogTitle: document.querySelector('meta[property="og:title"]')?.getAttribute('content'),
      ogDescription: document.querySelector('meta[property="og:description"]')?.getAttribute('content'),
      canonical: document.querySelector('link[rel="canonical"]')?.getAttribute('href'),
      lang: document.documentElement.lang,
    }));
  expect((await head()).description).toBe('Browse the Example Store catalog and set your display preferences.');
  await page.getByRole('link', { name: 'Preferences' }).first().click();
  await page.waitForURL(`${web.url}/preferences`);
  await expect
    .poll(() => head())
    .toEqual({
      title: 'Preferences · Example Store',
      description: 'Choose your display name, theme and catalog page size at the Example Store.',
      ogTitle: 'Preferences · Example Store',
      ogDescription: 'Choose your display name, theme and catalog page size at the Example Store.',
      canonical: `${web.url}/preferences`,
      lang: 'en',
    });
  expect(await isSameDocument(page)).toBe(true);
  await page.close();
});
