// Both images on one Docker network with a capture upstream, driven by Chromium through the web container: pages
// render and navigate client-side, and an error and a feedback from the page travel the tunnel path
// (browser → web → relay → upstream), as in `docker compose up`.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildImage as buildStage } from '@app/test-kit';
import type { Browser, Page } from 'playwright-core';
import { Network, type StartedNetwork, type StartedTestContainer, Wait } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';
import {
  buildImage,
  type CaptureContainer,
  type CapturedEnvelopeView,
  docker,
  E2E_TAG,
  eventually,
  exposedMetricNames,
  HardenedContainer,
  monitoredMetricNames,
  newEventId,
  startCapture,
} from '../support/containers.ts';

const DSN = 'http://public@capture:8000/1';

let network: StartedNetwork;
let capture: CaptureContainer;
let relay: StartedTestContainer;
let web: StartedTestContainer;
let browser: Browser;
let base: string;

beforeAll(async () => {
  const [webImage, relayImage] = [await buildImage('web'), await buildImage('telemetry-relay')];
  network = await new Network().start();
  capture = await startCapture(network);
  relay = await new HardenedContainer(relayImage)
    .withNetwork(network)
    .withNetworkAliases('relay')
    .withEnvironment({ ALLOWED_DSNS: DSN, UPSTREAM_URL: capture.envelopeUrl('1'), TRUSTED_PROXY_HOPS: '1' })
    .withTmpFs({ '/tmp': 'rw', '/var/lib/telemetry-relay/spool': 'rw,uid=1000,gid=1000' })
    .withExposedPorts(3001)
    .withWaitStrategy(Wait.forHttp('/readyz', 3001).forStatusCode(200))
    .start();
  web = await new HardenedContainer(webImage)
    .withNetwork(network)
    .withNetworkAliases('web')
    .withEnvironment({
      TUNNEL_TARGET: 'http://relay:3001',
      SENTRY_DSN: DSN,
      SENTRY_ENVIRONMENT: 'container-e2e',
      SENTRY_TRACES_SAMPLE_RATE: '1',
      METRICS_PORT: '9464',
    })
    .withExposedPorts(3000, 9464)
    .withWaitStrategy(Wait.forHttp('/readyz', 3000).forStatusCode(200))
    .start();
  base = `http://${web.getHost()}:${web.getMappedPort(3000)}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  for (const container of [web, relay, capture?.container]) await container?.stop({ timeout: 1_000 });
  await network?.stop();
});

async function openPage(path = '/'): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  const response = await page.goto(`${base}${path}`);
  expect(response?.status()).toBe(200);
  return { page, errors };
}

async function waitForEnvelope(predicate: (e: CapturedEnvelopeView) => boolean, what: string) {
  let found: CapturedEnvelopeView | undefined;
  await eventually(
    async () => {
      found = (await capture.envelopes()).find(predicate);
      return found !== undefined;
    },
    30_000,
    what,
  );
  return found as CapturedEnvelopeView;
}

describe('web and relay containers with Chromium', () => {
  it('serves a server-rendered page that hydrates without errors', async () => {
    const { page, errors } = await openPage('/');
    expect(await page.locator('main').first().textContent()).not.toBe('');
    await page.waitForLoadState('networkidle');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('navigates client-side without a full page load', async () => {
    const { page } = await openPage('/');
    await page.waitForLoadState('networkidle');
    await page.evaluate(() => {
      (globalThis as unknown as { __sameDocument: boolean }).__sameDocument = true;
    });
    const link = page.locator('a[href^="/"]:not([href="/"])').first();
    const target = await link.getAttribute('href');
    await link.click();
    await page.waitForURL((url) => url.pathname + url.search === target);
    expect(await page.evaluate(() => (globalThis as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(
      true,
    );
    await page.close();
  });

  it('sends a page error through the tunnel path and the relay to the upstream', async () => {
    const { page } = await openPage('/');
    await page.waitForLoadState('networkidle');
    const marker = `container e2e error ${newEventId()}`;
    await page.evaluate((message) => {
      setTimeout(() => {
        throw new Error(message);
      });
    }, marker);
    const envelope = await waitForEnvelope(
      (e) => e.items.some((item) => item.type === 'event' && JSON.stringify(item.json).includes(marker)),
      `the error event "${marker}" upstream`,
    );
    // The relay forwarded it: it adds the client's address the way Sentry expects from a trusted proxy.
    expect(envelope.requestHeaders['x-sentry-forwarded-for']).toBeTruthy();
    expect(envelope.header.dsn).toBe(DSN);
    await page.close();
  });

  it('sends user feedback from the widget through the relay to the upstream', async () => {
    const { page } = await openPage('/');
    await page.waitForLoadState('networkidle');
    const marker = `container e2e feedback ${newEventId()}`;
    await page.locator('#sentry-feedback').getByRole('button').first().click();
    const form = page.locator('#sentry-feedback');
    await form.locator('textarea[name="message"]').fill(marker);
    await form.locator('button[type="submit"]').click();
    await waitForEnvelope(
      (e) => e.items.some((item) => item.type === 'feedback' && JSON.stringify(item.json).includes(marker)),
      'the feedback upstream',
    );
    await page.close();
  });

  it('exposes every metric the alerts and the dashboard use, on the separate metrics port', async () => {
    const response = await fetch(`http://${web.getHost()}:${web.getMappedPort(9464)}/metrics`);
    expect(response.status).toBe(200);
    const exposed = exposedMetricNames(await response.text());
    const used = monitoredMetricNames('web');
    expect(used.length).toBeGreaterThan(0);
    expect(used.filter((name) => !exposed.has(name))).toEqual([]);
  });

  it('serves chunks with Debug IDs and ships no source map; the sourcemaps stage holds every chunk’s map', async () => {
    const listing = await web.exec([
      '/usr/local/bin/node',
      '-e',
      `const fs = require('node:fs');
       const files = fs.readdirSync('/app', { recursive: true }).map(String);
       console.log(JSON.stringify({ maps: files.filter((f) => /\\.map(\\.br|\\.gz)?$/.test(f)),
         chunks: fs.readdirSync('/app/services/web/dist/client/assets').filter((f) => f.endsWith('.js')),
         workspaces: fs.readdirSync('/app/node_modules/@app') }));`,
    ]);
    expect(listing.exitCode, listing.output).toBe(0);
    const { maps, chunks, workspaces } = JSON.parse(listing.output) as Record<
      'maps' | 'chunks' | 'workspaces',
      string[]
    >;
    expect(maps).toEqual([]);
    expect(workspaces).toEqual(['service-kit', 'telemetry-rules', 'web']); // no link to test-kit left from npm ci
    expect(chunks.length).toBeGreaterThan(3);
    const debugIds = new Map<string, string>();
    for (const chunk of chunks) {
      const served = await fetch(`${base}/assets/${chunk}`);
      debugIds.set(chunk, /\/\/# debugId=([0-9a-f-]{36})\s*$/.exec(await served.text())?.[1] ?? 'none');
      expect((await fetch(`${base}/assets/${chunk}.map`)).status).toBe(404);
    }
    // The release step's input, taken from the same build: docker build --target web-sourcemaps.
    const stage = `ssr-telemetry/web-sourcemaps:${E2E_TAG}`;
    await buildStage({ tag: stage, target: 'web-sourcemaps' });
    const id = await docker(['create', stage, 'none']);
    const out = await mkdtemp(join(tmpdir(), 'web-sourcemaps-'));
    try {
      await docker(['cp', `${id}:/sourcemaps`, out]);
      for (const [chunk, debugId] of debugIds) {
        const map = JSON.parse(await readFile(join(out, 'sourcemaps/assets', `${chunk}.map`), 'utf8'));
        expect(map.debug_id, chunk).toBe(debugId);
      }
    } finally {
      await docker(['rm', id]);
      await rm(out, { recursive: true, force: true });
    }
  });
});
