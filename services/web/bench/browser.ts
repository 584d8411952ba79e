// From Chromium: when the page is hydrated (performance mark "app:hydrated", ms after navigation start) and first
// contentful paint, with Sentry on and off; and the time to show a freshly prefetched page.
import { fileURLToPath } from 'node:url';
import { median, spawnService, startCaptureServer } from '@app/test-kit';
import { launchChromium } from '@app/test-kit/chromium';

const root = fileURLToPath(new URL('..', import.meta.url));

export async function measureBrowser(loads = 5): Promise<Record<string, string>> {
  const capture = await startCaptureServer();
  const browser = await launchChromium();
  const out: Record<string, string> = {};
  try {
    for (const sentry of [true, false]) {
      const web = await spawnService(`${root}dist/server/main.js`, {
        cwd: root,
        env: {
          NODE_OPTIONS: `--import ${root}dist/server/instrument.js`,
          LOG_LEVEL: 'info',
          ...(sentry
            ? { SENTRY_DSN: capture.dsn(), SENTRY_TRACES_SAMPLE_RATE: '1', TUNNEL_TARGET: capture.envelopeUrl() }
            : {}),
        },
      });
      try {
        const page = await browser.newPage();
        const hydrated: number[] = [];
        const paint: number[] = [];
        const clientWork: number[] = [];
        const sentryInit: number[] = [];
        await page.goto(`${web.url}/catalog`); // warm the HTTP cache
        for (let i = 0; i < loads; i++) {
          await page.goto(`${web.url}/catalog`);
          await page.waitForFunction(() => (window as { __appHydrated?: boolean }).__appHydrated === true);
          if (sentry) await page.waitForFunction(() => performance.getEntriesByName('app:sentry-load').length > 0);
          const [h, p, responseEnd] = await page.evaluate(() => [
            performance.getEntriesByName('app:hydrated')[0]?.startTime ?? Number.NaN,
            performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
            (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)?.responseEnd ??
              Number.NaN,
          ]);
          clientWork.push((h ?? Number.NaN) - (responseEnd ?? Number.NaN));
          sentryInit.push(
            await page.evaluate(
              () => performance.getEntriesByName('app:sentry-load', 'measure')[0]?.duration ?? Number.NaN,
            ),
          );
          hydrated.push(h ?? Number.NaN);
          paint.push(p ?? Number.NaN);
        }
        const label = sentry ? 'with Sentry' : 'without Sentry';
        out[`hydrated (${label})`] = `${median(hydrated).toFixed(0)} ms`;
        out[`first contentful paint (${label})`] = `${median(paint).toFixed(0)} ms`;
        out[`HTML received → hydrated (${label})`] = `${median(clientWork).toFixed(0)} ms`;
        if (sentry) out['Sentry SDK import + start (after hydration)'] = `${median(sentryInit).toFixed(1)} ms`;
        if (sentry) {
          const times: number[] = [];
          for (let i = 0; i < loads; i++) {
            await page.goto(`${web.url}/catalog`);
            await page.waitForFunction(() => (window as { __appHydrated?: boolean }).__appHydrated === true);
            const href = `/catalog/${['amber', 'brisk', 'cedar', 'dune', 'ember'][i]}-lamp`;
            const prefetched = page.waitForResponse((r) => r.url().endsWith(href));
            await page.hover(`a[href="${href}"]`);
            await prefetched;
            await page.waitForLoadState('networkidle');
            let requests = 0;
            page.on('request', (r) => {
              if (r.headers()['x-page-data']) requests++;
            });
            times.push(
              await page.evaluate(async (target) => {
                const main = document.getElementById('main') as HTMLElement;
                const started = performance.now();
                const shown = new Promise<void>((resolve) => {
                  new MutationObserver((_, observer) => {
                    if (main.querySelector('h1')?.textContent !== 'Catalog') {
                      observer.disconnect();
                      resolve();
                    }
                  }).observe(main, { subtree: true, childList: true, characterData: true });
                });
                document.querySelector<HTMLAnchorElement>(`a[href="${target}"]`)?.click();
                await shown;
                return performance.now() - started;
              }, href),
            );
            page.removeAllListeners('request');
            if (requests !== 0) out['prefetched navigation requests'] = `${requests} (expected 0)`;
          }
          out['navigation to a prefetched page'] =
            `${median(times).toFixed(1)} ms, ${out['prefetched navigation requests'] ?? '0 requests'}`;
        }
        await page.close();
      } finally {
        await web.kill();
      }
    }
  } finally {
    await browser.close();
    await capture.close();
  }
  return out;
}
