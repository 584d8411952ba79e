// The relay in front of another team's app (docs/relay-in-front-of-another-app.md), with the real SDKs and one real
// relay for every case: @sentry/browser 11 in Chromium with `tunnel: '<path>'` and with SDK 11's `tunnel: true` (the
// path it derives from the DSN, which the relay serves without TUNNEL_PATH), and @sentry/node 11 with `tunnel` set
// to the relay's URL. The page's origin forwards the tunnel paths to the relay as an edge route would; a capture
// server stands in for Sentry. Each app has its own DSN, as a second team's would.
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';
import { type CaptureServer, runToExit, type ServiceProcess, spawnService, startCaptureServer } from '@app/test-kit';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';
import { bundlePage } from '../support/sdk-defaults-app/bundle.ts';
import { forward } from '../support/sdk-defaults-app/front.ts';

const relayEntry = fileURLToPath(new URL('../../services/telemetry-relay/src/main.ts', import.meta.url));
const support = new URL('../support/relay-adoption/', import.meta.url);

let capture: CaptureServer;
let relay: ServiceProcess | undefined;
let front: Server | undefined;
let frontUrl = '';
let browser: Browser | undefined;
let bundle: string | undefined;
/** What reached the page's origin: `<method> <path and query> <content-type>`. */
const frontRequests: string[] = [];

const dsnOf = (project: string) => capture.dsn({ projectId: project, publicKey: `team${project}` });
const pathOf = (dsn: string) => {
  const path = tunnelPathOf(dsn);
  if (!path) throw new Error(`no tunnel path for ${dsn}`);
  return path;
};

/** The page's origin: the page and its script, every other path forwarded to the relay as the edge route does. */
function startFront(script: string): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://front');
    if (req.method === 'GET' && url.pathname === '/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    } else if (req.method === 'GET' && url.pathname === '/page') {
      const options = { dsn: url.searchParams.get('dsn'), tunnel: JSON.parse(url.searchParams.get('tunnel') ?? '""') };
      const message = url.searchParams.get('message');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Another app</title>
<script>window.__adoption = ${JSON.stringify({ ...options, message })};</script>
<script type="module" src="/app.js"></script></head><body><h1>Another app</h1></body></html>`,
      );
    } else {
      frontRequests.push(`${req.method} ${url.pathname}${url.search} ${req.headers['content-type'] ?? ''}`);
      forward(req, res, new URL(req.url ?? '/', relay?.url));
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  capture = await startCaptureServer();
  [browser, bundle] = await Promise.all([launchChromium(), bundlePage(fileURLToPath(new URL('page.ts', support)))]);
  const script = readFileSync(bundle, 'utf8');
  relay = await spawnService(relayEntry, {
    env: {
      // Three apps' DSNs and no TUNNEL_PATH: the relay serves the path `tunnel: true` derives from each.
      ALLOWED_DSNS: ['1', '2', '3'].map(dsnOf).join(','),
      UPSTREAM_URL: capture.envelopeUrl('1'),
      SPOOL_DIR: `${dirname(bundle)}/spool`,
      SPOOL_MODE: 'fast',
      TRUSTED_PROXY_HOPS: '1',
    },
  });
  front = await startFront(script);
  frontUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => front?.close(resolve));
  await relay?.kill();
  await capture?.close();
  if (bundle) rmSync(dirname(bundle), { recursive: true, force: true });
});

/** The error event upstream received with this message, and the DSN its envelope header named. */
async function arrived(message: string): Promise<{ dsn: unknown; sdk: unknown }> {
  const envelope = await capture.waitFor(
    (e) => e.items.some((item) => JSON.stringify(item.json ?? '').includes(message)),
    15_000,
  );
  return { dsn: envelope.header.dsn, sdk: (envelope.header.sdk as { name?: string } | undefined)?.name };
}

describe("@sentry/browser 11 in another app's page, through the relay", () => {
  const text = 'text/plain;charset=UTF-8';
  it.each([
    ['`tunnel: "<path>"` (the path the operator set)', '1', (dsn: string) => pathOf(dsn), text],
    // What @sentry/nextjs sets from `tunnelRoute` for a SaaS DSN (client/tunnelRoute.ts), routed to the relay.
    ['`tunnel: "<path>?o=…&p=…"` (Next.js tunnelRoute)', '1', (dsn: string) => `${pathOf(dsn)}?o=1&p=1`, text],
    [
      '`tunnel: true` (SDK 11 derives the path from the DSN)',
      '2',
      () => true as const,
      'application/x-sentry-envelope',
    ],
  ])('%s reaches upstream under its own DSN', async (label, project, tunnel, contentType) => {
    const dsn = dsnOf(project);
    // Letters only: the matcher searches the item's JSON text, where quotes are escaped.
    const message = `browser with ${label.replace(/[^\w ]+/g, ' ')} through the relay`;
    const page = await (browser as Browser).newPage();
    try {
      const option = tunnel(dsn);
      const query = new URLSearchParams({ dsn, tunnel: JSON.stringify(option), message });
      await page.goto(`${frontUrl}/page?${query}`);
      await page.waitForFunction(() => typeof window.__report === 'function');
      expect(await page.evaluate(() => window.__report())).toBe(true);
      expect(await arrived(message)).toEqual({ dsn, sdk: 'sentry.javascript.browser' });
      // The SDK posted to that URL on the page's own origin (`true`: the derived path, with the envelope's type).
      expect(frontRequests).toContain(`POST ${option === true ? pathOf(dsn) : option} ${contentType}`);
    } finally {
      await page.close();
    }
  });
});

describe('@sentry/node 11 through the relay', () => {
  it('reaches upstream with `tunnel` set to the relay URL and the path for its DSN', async () => {
    const dsn = dsnOf('3');
    const message = 'node project 3 through the relay';
    const run = await runToExit(fileURLToPath(new URL('node-app.ts', support)), {
      env: { SENTRY_DSN: dsn, SENTRY_TUNNEL: `${relay?.url}${pathOf(dsn)}`, MESSAGE: message },
      timeoutMs: 20_000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(await arrived(message)).toEqual({ dsn, sdk: 'sentry.javascript.node' });
  });

  it("is refused with the DSN's host pointed at the relay: it answers only its tunnel paths", async () => {
    const answer = await fetch(`${relay?.url}/api/3/envelope/?sentry_key=team3`, { method: 'POST', body: '{}' });
    expect(answer.status).toBe(404);
  });
});
