// A hydrated page of the web service with its page-data requests recorded: what the navigation suites share.
import type { Browser, Page, Request } from 'playwright-core';
import { markDocument, waitForHydration, type watchConsole, watchedPage } from './browser.ts';

export interface OpenedPage {
  page: Page;
  consoleSeen: ReturnType<typeof watchConsole>;
  /** Every request the page made with the page-data header, in order. */
  pageDataRequests: Request[];
}

/** A new page at `url`, hydrated and marked (isSameDocument); `fakeClock` installs Playwright's clock first. */
export async function openPage(
  browser: Browser,
  url: string,
  options: { fakeClock?: boolean } = {},
): Promise<OpenedPage> {
  const { page, seen: consoleSeen, pageDataRequests } = await watchedPage(browser);
  if (options.fakeClock) await page.clock.install();
  await page.goto(url);
  await waitForHydration(page);
  await markDocument(page);
  return { page, consoleSeen, pageDataRequests };
}

/** In the page: clicks the link to `path` and resolves with the ms until `main` shows the page's title. */
export async function navigateTimed([path, title]: [string, string]): Promise<number> {
  const main = document.getElementById('main') as HTMLElement;
  const link = document.querySelector<HTMLAnchorElement>(`a[href="${path}"]`) as HTMLAnchorElement;
  const started = performance.now();
  const shown = new Promise<void>((resolve) => {
    const observer = new MutationObserver(() => {
      if (main.querySelector('h1')?.textContent === title) {
        observer.disconnect();
        resolve();
      }
    });
    observer.observe(main, { subtree: true, childList: true, characterData: true });
  });
  link.click();
  await shown;
  return performance.now() - started;
}
