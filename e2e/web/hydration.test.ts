// Hydration as a phone sees it: React hydrates the server's HTML in slices (a transition), so other tasks run between
// them and the page answers input while it hydrates; the server's DOM is kept as it is, with no mismatch.
import { describe, expect, it } from 'vitest';
import { waitForHydration, watchConsole } from '../support/browser.ts';
import { webSuite } from '../support/web.ts';

const suite = webSuite({});

declare global {
  interface Window {
    /** What the test's probe saw: how many of the page's elements React had claimed, at each task it ran in. */
    __hydrationProbe?: number[];
    __serverMain?: Element | null;
  }
}

/**
 * Before any of the page's scripts: remembers the server's <main> and, in a task of its own again and again until
 * the app says it is hydrated, counts the elements under #root React has claimed (React attaches its fiber to each
 * node as it hydrates it, before the commit).
 */
function probeHydration(): void {
  window.__hydrationProbe = [];
  document.addEventListener('DOMContentLoaded', () => {
    window.__serverMain = document.querySelector('main');
    const poll = () => {
      const elements = [...document.querySelectorAll('#root *')];
      window.__hydrationProbe?.push(
        elements.filter((el) => Object.keys(el).some((key) => key.startsWith('__reactFiber$'))).length,
      );
      if (!(window as { __appHydrated?: boolean }).__appHydrated) setTimeout(poll, 0);
    };
    poll();
  });
}

describe('hydration', () => {
  it('is done in slices, with other tasks between them, and keeps the server DOM with no mismatch', async () => {
    const page = await suite.browser.newPage();
    const seen = watchConsole(page);
    const cdp = await page.context().newCDPSession(page);
    // A phone's CPU (as Lighthouse's mobile preset), so that hydrating the 50-item list is more than one slice.
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await page.addInitScript(probeHydration);
    await page.goto(`${suite.web.url}/catalog`);
    await waitForHydration(page);
    const probe = (await page.evaluate(() => window.__hydrationProbe)) ?? [];
    // Seen between two slices: some of the page claimed, not yet all of it (in one task it goes from none to all).
    const all = Math.max(...probe);
    expect(all).toBeGreaterThan(50);
    expect(probe.filter((claimed) => claimed > 0 && claimed < all).length).toBeGreaterThan(0);
    // Hydrated, not re-rendered: the server's elements are the ones on screen, and React complained of nothing.
    expect(await page.evaluate(() => window.__serverMain === document.querySelector('main'))).toBe(true);
    expect(seen.errors).toEqual([]);
    await page.close();
  });
});
