// A second team's app on another origin posting to the relay's own hostname (issue 40, point 2): real Chromium,
// the real @sentry/browser with `tunnel` pointed at a real relay process run on a projects file. The project lists
// one page origin: that page's error arrives upstream; the same page on another origin is refused (403), and its
// error never leaves the relay. A preflighted POST (a non-simple content type) from the listed origin gets through.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CaptureServer, type ServiceProcess, spawnService, startCaptureServer } from '@app/test-kit';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, watchConsole } from '../support/browser.ts';
import { type PageServer, servePage } from '../support/cross-origin-page/server.ts';
import { bundlePage } from '../support/sdk-defaults-app/bundle.ts';

const relayMain = fileURLToPath(new URL('../../services/telemetry-relay/src/main.ts', import.meta.url));
const pageEntry = fileURLToPath(new URL('../support/cross-origin-page/page.ts', import.meta.url));

let capture: CaptureServer;
let relay: ServiceProcess;
let browser: Browser;
let allowed: PageServer;
let refused: PageServer;
let dsn: string;
/** Temp dirs: the relay's (projects file, spool) and the bundle's, removed after. */
const dirs: string[] = [];

beforeAll(async () => {
  let bundle: string;
  [capture, browser, bundle] = await Promise.all([startCaptureServer(), launchChromium(), bundlePage(pageEntry)]);
  dsn = capture.dsn({ projectId: '31', publicKey: 'teamtwo' });
  // Two servers of the same page: two origins, one of them listed. The relay starts once their ports are known.
  allowed = await servePage(bundle);
  refused = await servePage(bundle);
  const dir = mkdtempSync(join(tmpdir(), 'relay-projects-'));
  dirs.push(dir, dirname(bundle));
  const file = join(dir, 'projects.json');
  writeFileSync(file, JSON.stringify({ projects: { [dsn]: { origins: [allowed.origin] } } }));
  relay = await spawnService(relayMain, {
    env: { PROJECTS_FILE: file, TUNNEL_PATH: '/t', SPOOL_DIR: join(dir, 'spool') },
  });
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([allowed?.close(), refused?.close()]);
  await relay?.kill();
  await capture?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Opens the page with the relay's tunnel URL and waits for the SDK's flush. */
async function sendFrom(page: PageServer, message: string) {
  const tab = await browser.newPage();
  const console = watchConsole(tab);
  await tab.addInitScript(
    ({ dsn, tunnel, message }) => {
      (window as unknown as { __relayTest: unknown }).__relayTest = { dsn, tunnel, message };
    },
    { dsn, tunnel: `${relay.url}/t`, message },
  );
  const answers: number[] = [];
  tab.on('response', (response) => {
    if (response.url().startsWith(`${relay.url}/t`)) answers.push(response.status());
  });
  await tab.goto(page.origin);
  await tab.waitForFunction(() => (window as unknown as { __flushed?: unknown }).__flushed !== undefined);
  await tab.evaluate(() => (window as unknown as { __flushed: Promise<boolean> }).__flushed);
  return { tab, console, answers };
}

describe('a page on another origin, through the relay', () => {
  it('gets its error through from the origin its project lists, the answer readable to it', async () => {
    const message = 'checkout failed on team two';
    const { tab, console, answers } = await sendFrom(allowed, message);
    const arrived = await capture.waitFor((e) => JSON.stringify(e.items[0]?.json ?? {}).includes(message));
    expect(arrived.projectId).toBe('31');
    expect(arrived.requestHeaders.origin).toBe(allowed.origin);
    expect(answers).toEqual([200]);
    expect(console.errors.filter((e) => /CORS|Access-Control/i.test(e))).toEqual([]);
    await tab.close();
  });

  it('is refused from an origin its project does not list: 403, nothing forwarded', async () => {
    const message = 'checkout failed on an unlisted origin';
    const { tab, console, answers } = await sendFrom(refused, message);
    // A simple request, so the browser sends it; the relay refuses it, and the answer is unreadable to the page.
    await expect.poll(() => answers.length + console.errors.length).toBeGreaterThan(0);
    expect(console.errors.some((e) => /CORS|Access-Control-Allow-Origin/i.test(e))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(capture.envelopes.some((e) => JSON.stringify(e.items[0]?.json ?? {}).includes(message))).toBe(false);
    const rejected = await (await fetch(`${relay.url}/metrics`)).text();
    expect(rejected).toMatch(/^relay_envelopes_rejected_total\{reason="origin_not_allowed"\} [1-9]/m);
    await tab.close();
  });

  it('answers the preflight of a non-simple POST from the listed origin, then takes the POST', async () => {
    const tab = await browser.newPage();
    await tab.goto(allowed.origin);
    const status = await tab.evaluate(
      async ({ url, dsn }) => {
        const body = `${JSON.stringify({ dsn })}\n{"type":"event"}\n{"message":"preflighted from the page"}`;
        const response = await fetch(url, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/x-sentry-envelope' },
        });
        return [response.status, response.headers.get('x-sentry-rate-limits')];
      },
      { url: `${relay.url}/t`, dsn },
    );
    expect(status).toEqual([200, null]);
    await capture.waitFor((e) => JSON.stringify(e.items[0]?.json ?? {}).includes('preflighted from the page'));
    await tab.close();
  });
});
