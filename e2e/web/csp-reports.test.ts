// CSP violations reach Sentry: Chromium blocks an injected inline script (what an XSS would try), reports it to the
// page's own host (`<tunnel path>/security`, like the tunnel, so ad blockers let it through), and the web service's
// tunnel proxy → the real relay → the capture upstream receive it as a `raw_security` item for the DSN.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CaptureServer, type ServiceProcess, spawnService, startCaptureServer } from '@app/test-kit';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, waitForHydration } from '../support/browser.ts';
import { startWeb } from '../support/web.ts';

const relayMain = fileURLToPath(new URL('../../services/telemetry-relay/src/main.ts', import.meta.url));
const spoolDir = mkdtempSync(join(tmpdir(), 'csp-reports-spool-'));

let capture: CaptureServer;
let relay: ServiceProcess;
let web: ServiceProcess;
let browser: Browser;

beforeAll(async () => {
  capture = await startCaptureServer();
  relay = await spawnService(relayMain, {
    env: { ALLOWED_DSNS: capture.dsn(), SPOOL_DIR: spoolDir, TRUSTED_PROXY_HOPS: '1' },
  });
  [web, browser] = await Promise.all([
    startWeb({
      SENTRY_DSN: capture.dsn(),
      SENTRY_RELEASE: 'web@csp-e2e',
      SENTRY_ENVIRONMENT: 'e2e',
      SENTRY_TRACES_SAMPLE_RATE: '0',
      TUNNEL_TARGET: relay.url,
    }),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await web?.kill();
  await relay?.kill();
  await capture?.close();
  rmSync(spoolDir, { recursive: true, force: true });
});

type CspReport = Record<'blocked-uri' | 'effective-directive' | 'document-uri', string>;

describe('CSP violation reports', () => {
  it('reports a blocked inline script through the tunnel path and the relay as a raw_security item', async () => {
    const page = await browser.newPage();
    await page.goto(`${web.url}/catalog`);
    await waitForHydration(page);
    const ran = await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__injected = true';
      document.head.append(script);
      return (window as { __injected?: boolean }).__injected === true;
    });
    expect(ran).toBe(false); // blocked: no nonce

    const envelope = await capture.waitFor((e) => e.items.some((item) => item.type === 'raw_security'), 20_000);
    const item = envelope.items.find((i) => i.type === 'raw_security');
    expect(envelope.header.dsn).toBe(capture.dsn());
    expect(item?.header).toMatchObject({
      content_type: 'application/csp-report',
      sentry_release: 'web@csp-e2e',
      sentry_environment: 'e2e',
    });
    const report = JSON.parse(String(item?.payload)) as { 'csp-report'?: CspReport };
    expect(report['csp-report']).toMatchObject({
      'blocked-uri': 'inline',
      'effective-directive': 'script-src-elem',
      'document-uri': `${web.url}/catalog`,
    });
    // Through the relay: it names the browser's address (the tunnel proxy's X-Forwarded-For, one trusted hop).
    expect(envelope.requestHeaders['x-sentry-forwarded-for']).toBe('127.0.0.1');
    expect(String(envelope.requestHeaders['user-agent'])).toMatch(/Chrome/);
    await page.close();
  });
});
