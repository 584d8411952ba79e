// Issue 12's bound: a navigation to a prefetched page shows it in under 50 ms, with no request. Timed on the wall
// clock, so this file is in the e2e-alone lane (e2e/alone.ts); the rest of navigation's behaviour is navigation.test.ts.
import { expect, it } from 'vitest';
import { isSameDocument } from '../support/browser.ts';
import { navigateTimed, openPage } from '../support/navigation-page.ts';
import { webSuite } from '../support/web.ts';

const suite = webSuite({});

it('prefetches on hover and then navigates with no request, fast', async () => {
  const { page, pageDataRequests } = await openPage(suite.browser, `${suite.web.url}/catalog`);
  const dataRequestsTo = (path: string) => pageDataRequests.filter((r) => new URL(r.url()).pathname === path).length;
  const targets: Array<[string, string]> = [
    ['/catalog/ember-lamp', 'Ember Lamp'],
    ['/catalog/amber-lamp', 'Amber Lamp'],
    ['/catalog/brisk-lamp', 'Brisk Lamp'],
  ];
  for (const [path] of targets) {
    const prefetched = page.waitForResponse((r) => new URL(r.url()).pathname === path);
    await page.hover(`a[href="${path}"]`);
    await prefetched;
  }
  await page.waitForLoadState('networkidle');
  const requests = () => targets.map(([path]) => dataRequestsTo(path));
  expect(requests()).toEqual([1, 1, 1]);
  const elapsed: number[] = [];
  for (const target of targets) {
    elapsed.push(await page.evaluate(navigateTimed, target));
    await page.evaluate(() => history.back());
    await expect.poll(() => page.textContent('main h1')).toBe('Catalog');
  }
  expect(requests()).toEqual([1, 1, 1]);
  expect(await isSameDocument(page)).toBe(true);
  const [, median] = [...elapsed].sort((a, b) => a - b);
  console.log(`navigation to a prefetched page: ${elapsed.map((ms) => ms.toFixed(1)).join(', ')} ms, 0 requests`);
  // Timed in the page around the navigation alone; the median of three, as one navigation can lose the CPU to the
  // machine's other load.
  expect(median).toBeLessThan(50);
  await page.close();
});
