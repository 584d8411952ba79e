// Streaming SSR with deferred data, in a real web process and in Chromium: the item page's shell (with its <h1>)
// arrives first and its related items stream into the same response once their loader's delay has passed; the
// browser fills them in without a reload or hydration error, and client navigation streams them the same way.
// A deferred part that fails shows an error in that part only, and the failure is reported upstream.
import { request as httpRequest } from 'node:http';
import { createBrotliDecompress } from 'node:zlib';
import type { CapturedEnvelope } from '@app/test-kit';
import type { Page, Request } from 'playwright-core';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isSameDocument, markDocument, screenshot, waitForHydration, watchedPage } from '../support/browser.ts';
import { reportingWebSuite } from '../support/web.ts';

/** The related items' loader delay (CATALOG_RELATED_DELAY_MS): long enough to see the two phases apart. */
const DELAY_MS = 2_000;
/** In the page's <main>: React first streams a part into a hidden <div> outside it, then moves it into place. */
const RELATED = 'main [data-testid="related-items"] li';
const FALLBACK = 'text=Loading related items…';

let page: Page;
let seen: Awaited<ReturnType<typeof watchedPage>>['seen'];
let pageDataRequests: Request[];

const suite = reportingWebSuite({
  DIAGNOSTICS: '1',
  CATALOG_RELATED_DELAY_MS: String(DELAY_MS),
  SENTRY_TRACES_SAMPLE_RATE: '0',
});
afterEach(async () => {
  await page?.close();
});

async function newPage(): Promise<void> {
  ({ page, seen, pageDataRequests } = await watchedPage(suite.browser));
}

/** The response body's chunks as they arrive (decompressed), each with its time since the request was sent. */
function readChunks(path: string, encoding?: 'br'): Promise<Array<{ at: number; text: string }>> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, suite.web.url);
    const started = performance.now();
    const req = httpRequest(url, { headers: encoding ? { 'accept-encoding': encoding } : {} }, (res) => {
      expect(res.headers['content-encoding']).toBe(encoding);
      const chunks: Array<{ at: number; text: string }> = [];
      const body = encoding ? res.pipe(createBrotliDecompress()) : res;
      body.on('data', (chunk: Buffer) => chunks.push({ at: performance.now() - started, text: chunk.toString() }));
      body.on('end', () => resolve(chunks));
      body.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Runs in the page: notes, by the page's own clock, when an <h1> reading `heading` first shows, when the related
 * items' fallback first shows, and when the related items do. (In the page, so the machine's load cannot make the
 * test look later than the page did.)
 */
function recordPhases(heading: string): void {
  const phases: { shell?: number; fallback?: number; related?: number } = {};
  (window as unknown as { __phases: typeof phases }).__phases = phases;
  const check = () => {
    const now = performance.now();
    if (phases.shell === undefined && document.querySelector('main h1')?.textContent === heading) phases.shell = now;
    if (phases.fallback === undefined && document.querySelector('main p.loading')) phases.fallback = now;
    if (phases.related === undefined && document.querySelector('main [data-testid="related-items"] li'))
      phases.related = now;
  };
  check();
  new MutationObserver(check).observe(document, { childList: true, subtree: true, characterData: true });
}

/** The item and the fallback showed first, the related items (most of) the loader's delay later. */
async function expectStreamedPhases(): Promise<void> {
  await expect.poll(() => page.locator(RELATED).count(), { timeout: 10_000 }).toBe(3);
  const phases = await page.evaluate(
    () => (window as unknown as { __phases: { shell: number; fallback: number; related: number } }).__phases,
  );
  console.log(
    `in the page: item at ${phases.shell.toFixed(0)} ms, related ${(phases.related - phases.shell).toFixed(0)} ms later`,
  );
  expect(phases.fallback).toBeGreaterThanOrEqual(phases.shell);
  expect(phases.related - phases.fallback).toBeGreaterThanOrEqual(DELAY_MS / 2);
}

const itemOf = (envelope: CapturedEnvelope, type: string) =>
  envelope.items.find((item) => item.type === type)?.json as Record<string, unknown> | undefined;
const exceptionValue = (event: Record<string, unknown> | undefined) =>
  ((event?.exception as { values?: Array<{ value?: string }> } | undefined)?.values ?? [])
    .map((v) => v.value)
    .join(' ');

describe('the item page streams its related items into the same response', () => {
  // A fresh process renders its first page slowly (code not yet optimized): warm it up before timing it.
  beforeAll(async () => {
    await (await fetch(`${suite.web.url}/catalog/ember-lamp`)).text();
  });

  // Both at once: each reads a response of its own, and its bounds are lower bounds the server's delay sets.
  it.concurrent.for([
    ['uncompressed', undefined],
    ['brotli', 'br'],
  ] as const)(
    '%s: the shell with <h1> first, the related items at least the delay later',
    async ([_, encoding], { expect }) => {
      const chunks = await readChunks('/catalog/amber-lamp', encoding);
      const shell = chunks.findIndex((c) => c.text.includes('<h1>Amber Lamp</h1>'));
      const part = chunks.findIndex((c) => c.text.includes('data-testid="related-items"'));
      expect(shell).toBeGreaterThanOrEqual(0);
      expect(part).toBeGreaterThan(shell);
      const shellChunk = chunks[shell];
      const partChunk = chunks[part];
      expect(shellChunk?.text).toContain('Loading related items…');
      // The loader's timer starts just before the shell is rendered: the part cannot leave before the delay has run
      // since the request, and the shell does not wait for it (it arrives within a small part of the delay).
      const gap = (partChunk?.at ?? 0) - (shellChunk?.at ?? 0);
      console.log(
        `${encoding ?? 'identity'}: shell at ${shellChunk?.at.toFixed(0)} ms, part ${gap.toFixed(0)} ms later`,
      );
      expect(partChunk?.at).toBeGreaterThanOrEqual(DELAY_MS);
      expect(gap).toBeGreaterThanOrEqual(DELAY_MS / 2);
      // The part's data travels in the same chunk as its HTML, so hydration sees both.
      expect(partChunk?.text).toContain('"key":"related","value":[');
    },
  );

  it('Chromium shows the item first, then fills in the related items: no reload, no hydration error', async () => {
    await newPage();
    await page.addInitScript(recordPhases, 'Amber Lamp');
    await page.goto(`${suite.web.url}/catalog/amber-lamp`, { waitUntil: 'commit' });
    await page.locator('h1', { hasText: 'Amber Lamp' }).waitFor();
    await markDocument(page);
    await expectStreamedPhases();
    expect(await page.locator(RELATED).allTextContents()).toEqual([
      'Brisk Lamp €78.38',
      'Cedar Lamp €67.57',
      'Dune Lamp €56.76',
    ]);
    await waitForHydration(page);
    expect(await isSameDocument(page)).toBe(true);
    expect(await page.locator(FALLBACK).count()).toBe(0);
    expect(pageDataRequests).toEqual([]);
    expect(seen.errors).toEqual([]);
    expect(seen.warnings.filter((w) => /hydrat|did not match/i.test(w))).toEqual([]);
    // Hydrated: the related item's link is a client navigation.
    await page.click('a[href="/catalog/brisk-lamp"]');
    await expect.poll(() => page.textContent('h1'), { timeout: 5_000 }).toBe('Brisk Lamp');
    expect(await isSameDocument(page)).toBe(true);
  });

  it('on client navigation renders the item at once and streams the related items in after', async () => {
    await newPage();
    await page.goto(`${suite.web.url}/catalog`);
    await waitForHydration(page);
    await markDocument(page);
    await page.evaluate(recordPhases, 'Cedar Lamp');
    await page.locator('a[href="/catalog/cedar-lamp"]').evaluate((link: HTMLElement) => link.click());
    await expectStreamedPhases();
    expect(await page.locator(RELATED).first().textContent()).toContain('Dune Lamp');
    expect(await isSameDocument(page)).toBe(true);
    expect(pageDataRequests.map((r) => new URL(r.url()).pathname)).toEqual(['/catalog/cedar-lamp']);
    expect(seen.errors).toEqual([]);
  });
});

describe('a deferred part that fails', () => {
  it.each([
    ['on first load', false],
    ['on client navigation', true],
  ])('%s: shows an error for that part only, with the digest of the event reported upstream', async (_, client) => {
    await newPage();
    if (client) {
      await page.goto(`${suite.web.url}/diagnostics/ignored-error`);
      await waitForHydration(page);
      await markDocument(page);
      await page.click('a[href="/diagnostics/deferred-error"]');
    } else {
      await page.goto(`${suite.web.url}/diagnostics/deferred-error`);
    }
    const digest = page.locator('[data-testid="deferred-digest"]');
    await digest.waitFor({ timeout: 10_000 });
    const id = await digest.textContent();
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    // The rest of the page stands; only the part shows its failure.
    expect(await page.textContent('main h1')).toBe('Diagnostics: deferred-error');
    expect(await page.textContent('.deferred-failed')).toContain('The deferred part failed.');
    expect(await page.content()).not.toContain('secret-internal-detail');
    if (client) expect(await isSameDocument(page)).toBe(true);
    else await waitForHydration(page);
    const envelope = await suite.capture.waitFor((e) => itemOf(e, 'event')?.event_id === id, 20_000);
    expect(exceptionValue(itemOf(envelope, 'event'))).toContain('diagnostics: deferred failure');
    const where = 'diagnostics.$failure.deferred'; // <route id>.<key>
    expect(suite.web.logs.some((line) => line.digest === id && line.where === where)).toBe(true);
    expect(seen.errors.filter((e) => !/status of 500/.test(e))).toEqual([]);
    await screenshot(page, `deferred-failure-${client ? 'client' : 'document'}`);
  });
});
