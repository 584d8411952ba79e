// Head metadata in Chromium: a client navigation updates description, canonical URL and Open Graph like the title.
import { expect, it } from 'vitest';
import { isSameDocument, markDocument, waitForHydration } from '../support/browser.ts';
import { webSuite } from '../support/web.ts';

const suite = webSuite({});

it('updates the head metadata on a client navigation', async () => {
  const page = await suite.browser.newPage();
  await page.goto(`${suite.web.url}/`);
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
  await page.waitForURL(`${suite.web.url}/preferences`);
  await expect
    .poll(() => head())
    .toEqual({
      title: 'Preferences · Example Store',
      description: 'Choose your display name, theme and catalog page size at the Example Store.',
      ogTitle: 'Preferences · Example Store',
      ogDescription: 'Choose your display name, theme and catalog page size at the Example Store.',
      canonical: `${suite.web.url}/preferences`,
      lang: 'en',
    });
  expect(await isSameDocument(page)).toBe(true);
  await page.close();
});
