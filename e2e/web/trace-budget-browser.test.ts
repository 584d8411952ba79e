// The trace budget shared fairly (issue 28.8), in Chromium: while another client floods the service with page-data
// requests forcing sampled traces (`sentry-trace: …-1`), half of them with a forged Sec-Fetch-Site: same-origin, a real
// browser's navigation still has its page-data request continued on the server, in the navigation's trace.
import { request } from 'node:http';
import type { Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { serverSpans, telemetrySuite, traceIdOf } from '../support/telemetry-stack.ts';

const PER_SECOND = 5;
const suite = telemetrySuite({ TRACE_CONTINUATION_PER_SECOND: String(PER_SECOND) });

const clickLink = (page: Page, href: string) =>
  page.evaluate((target) => document.querySelector<HTMLAnchorElement>(`a[href="${target}"]`)?.click(), href);
const isPageData = (path: string) => (req: Request) =>
  new URL(req.url()).pathname === path && req.headers()['x-page-data'] === '1';

/** One forced page-data request from another loopback address than the browser's (127.0.0.1). */
function attackOnce(base: string, n: number): Promise<void> {
  const url = new URL('/catalog', base);
  const traceId = `${n.toString(16).padStart(8, '0')}${'cd'.repeat(12)}`;
  const headers = {
    'x-page-data': '1',
    'sentry-trace': `${traceId}-0123456789abcdef-1`,
    ...(n % 2 === 0 ? { 'sec-fetch-site': 'same-origin' } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, headers, localAddress: '127.0.0.2' });
    req.on('response', (res) => res.resume().on('end', resolve)).on('error', reject);
    req.end();
  });
}

describe(`trace continuation shares (TRACE_CONTINUATION_PER_SECOND=${PER_SECOND})`, () => {
  it("a client forcing -1 traces does not take the budget from a real browser's navigation", async () => {
    const base = suite.stack.web.url;
    const { page, seen } = await suite.open('/catalog');
    let flooding = true;
    let sent = 0;
    const attacker = async () => {
      while (flooding) await attackOnce(base, sent++);
    };
    const attackers = Promise.all(Array.from({ length: 6 }, attacker));
    await expect.poll(() => sent, { timeout: 20_000 }).toBeGreaterThan(20 * PER_SECOND);

    let headers: Record<string, string>;
    try {
      const pageData = page.waitForRequest(isPageData('/catalog/amber-lamp'));
      await clickLink(page, '/catalog/amber-lamp');
      headers = await (await pageData).allHeaders();
      await expect.poll(() => page.textContent('main h1'), { timeout: 15_000 }).toBe('Amber Lamp');
    } finally {
      flooding = false;
      await attackers;
    }

    expect(headers['sentry-trace']).toMatch(/^[0-9a-f]{32}-[0-9a-f]{16}-1$/);
    expect(headers['sec-fetch-site']).toBe('same-origin');
    const traceId = traceIdOf(headers['sentry-trace']) ?? '';
    const spans = await serverSpans(suite.stack.capture, traceId);
    expect(spans.map((span) => span.name)).toContain('GET /catalog/:slug');
    // The flood was over the budget: most of its forced decisions were refused.
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const overBudget = Number(/web_trace_continuations_total\{outcome="over_budget"\} (\d+)/.exec(metrics)?.[1]);
    process.stdout.write(`trace shares: ${sent} forced requests from the attacker, ${overBudget} over budget\n`);
    expect(overBudget).toBeGreaterThan(sent / 2);
    expect(seen.errors).toEqual([]);
    await page.close();
  }, 90_000);
});
