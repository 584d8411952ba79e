// What is not reported (§8), shown in Chromium through tunnel and relay: the browser's "Script error." for a failing
// script of another origin, and redirect and not-found outcomes, on first load and on client navigation. Each test
// ends with a sentinel error sent after the noise: once it has arrived, anything sent for the noise would have too.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { waitForHydration } from '../support/browser.ts';
import {
  errorTexts,
  exceptionValue,
  itemOf,
  relayDropped as relayDroppedBy,
  sendSentinel,
  telemetrySuite,
} from '../support/telemetry-stack.ts';

const suite = telemetrySuite({ DIAGNOSTICS: '1' });

/** A second loopback origin serving a script that throws (no CORS headers: the page learns nothing about it). */
let thirdParty: Server;
let thirdPartyOrigin: string;
beforeAll(async () => {
  thirdParty = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/javascript' }).end("throw new Error('third-party failure');");
  });
  thirdParty.listen(0, '127.0.0.1');
  await once(thirdParty, 'listening');
  thirdPartyOrigin = `http://127.0.0.1:${(thirdParty.address() as AddressInfo).port}`;
});
afterAll(() => {
  thirdParty?.close();
});
beforeEach(() => suite.stack.capture.clear());

const sentinel = (page: Page, message: string) => sendSentinel(suite.stack, page, message);
const relayDropped = (rule: string) => relayDroppedBy(suite.stack, rule);

describe('noise that is not reported', () => {
  it('sends nothing for "Script error." from a script of another origin', async () => {
    const { page } = await suite.open('/catalog');
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as { __errorMessages?: string[] }).__errorMessages = seen;
      addEventListener('error', (event) => seen.push(event.message));
    });
    // Allowed by the page's CSP through its nonce, as a tag manager would add it; the production policy is unchanged.
    await page.evaluate(
      (src) =>
        new Promise<void>((resolve) => {
          const script = document.createElement('script');
          script.src = src;
          script.nonce = document.querySelector<HTMLScriptElement>('script[nonce]')?.nonce ?? '';
          script.onload = () => resolve();
          script.onerror = () => resolve();
          document.head.append(script);
        }),
      `${thirdPartyOrigin}/third-party.js`,
    );
    expect(await page.evaluate(() => (window as { __errorMessages?: string[] }).__errorMessages)).toEqual([
      'Script error.',
    ]);

    await sentinel(page, 'sentinel after a cross-origin script error');
    expect(errorTexts(suite.stack.capture)).toEqual(['sentinel after a cross-origin script error']);
    // Not even sent to be dropped: the browser SDK kept it.
    expect(await relayDropped('cross-origin-script-error')).toBe(0);
    await page.close();
  });

  it('sends no error event for redirect and not-found outcomes, on first load or on client navigation', async () => {
    const { page, seen } = await suite.open('/catalog/old-amber-lamp');
    expect(page.url()).toBe(`${suite.stack.web.url}/catalog/amber-lamp`);
    // Pages are left while their telemetry may still be sending: a tunnel POST the browser aborts is no error either.
    const leave = (path: string) => page.goto(`${suite.stack.web.url}${path}`);
    for (const missing of ['/catalog/no-such-item', '/no/such/page']) {
      await leave(missing);
      await waitForHydration(page);
      expect(await page.textContent('main h1')).toBe('Page not found');
    }
    await leave('/diagnostics/ignored-error');
    await waitForHydration(page);
    await page.click('text=a moved page');
    await expect.poll(() => page.textContent('main h1')).toBe('Amber Lamp');
    await page.goBack();
    await page.click('text=a missing item');
    await expect.poll(() => page.textContent('main h1')).toBe('Page not found');

    // A server failure and a browser failure after them arrive; nothing else does.
    const server = await fetch(`${suite.stack.web.url}/diagnostics/server-error`);
    expect(server.status).toBe(500);
    await suite.stack.capture.waitFor((e) => exceptionValue(itemOf(e, 'event')).includes('loader failure'), 20_000);
    await sentinel(page, 'sentinel after redirects and not-found pages');
    expect(errorTexts(suite.stack.capture).sort()).toEqual([
      'diagnostics: loader failure (secret-internal-detail)',
      'sentinel after redirects and not-found pages',
    ]);
    expect(seen.errors.filter((e) => !/404 \(Not Found\)|sentinel/.test(e))).toEqual([]);
    await page.close();
  });
});
