// The foundation the other end-to-end suites stand on: both services run as real processes, Chromium drives a page
// through playwright-core, and Testcontainers runs the locally built base image.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runToExit, type ServiceProcess, spawnService } from '@app/test-kit';
import { GenericContainer } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.ts';
import { BASE_IMAGE } from './support/containers.ts';

const services = {
  web: fileURLToPath(new URL('../services/web/src/main.ts', import.meta.url)),
  relay: fileURLToPath(new URL('../services/telemetry-relay/src/main.ts', import.meta.url)),
};

// The relay needs an allowed DSN (here: loopback DSNs on the viewer's port, so a tunnel path too: none to derive it
// from) and a spool directory of its own (it locks it).
const envFor = (entry: string): Record<string, string> =>
  entry === services.relay
    ? { ALLOW_LOOPBACK_DSNS: '8969', TUNNEL_PATH: '/t', SPOOL_DIR: mkdtempSync(join(tmpdir(), 'toolchain-spool-')) }
    : {};

describe('toolchain', () => {
  const running: ServiceProcess[] = [];
  beforeAll(async () => {
    running.push(
      await spawnService(services.web, { env: envFor(services.web) }),
      await spawnService(services.relay, { env: envFor(services.relay) }),
    );
  });
  afterAll(async () => {
    await Promise.all(running.map((s) => s.kill()));
  });

  it('starts web and relay as real processes that answer health checks', async () => {
    for (const service of running) {
      const response = await fetch(`${service.url}/readyz`);
      expect(response.status).toBe(200);
    }
  });

  it.each(Object.entries(services))(
    '%s exits 78 naming the variable when its configuration is invalid',
    async (_, entry) => {
      const { code, stderr } = await runToExit(entry, { env: { ...envFor(entry), PORT: '99999' } });
      expect(code).toBe(78);
      expect(stderr).toContain('PORT must be an integer from 0 to 65535 (got \\"99999\\")');
    },
  );

  it.each(Object.entries(services))('%s exits 0 on SIGTERM', async (_, entry) => {
    const service = await spawnService(entry, { env: envFor(entry) });
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  });

  it('drives Debian Chromium with playwright-core', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const response = await page.goto(`${running[0]?.url}/healthz`);
      expect(response?.status()).toBe(200);
      expect(await page.textContent('body')).toContain('"status":"ok"');
    } finally {
      await browser.close();
    }
  });

  it('runs the locally built base image with Testcontainers', async () => {
    const container = await new GenericContainer(BASE_IMAGE).withCommand(['sleep', 'infinity']).start();
    try {
      const { exitCode, output } = await container.exec([
        'node',
        '-p',
        'process.version + " " + require("os").userInfo().username',
      ]);
      expect(exitCode).toBe(0);
      expect(output.trim()).toMatch(/^v24\.\d+\.\d+ root$/);
      const asNode = await container.exec(['id', '-u', 'node']);
      expect(asNode.output.trim()).toBe('1000');
    } finally {
      await container.stop({ timeout: 1 });
    }
  });
});
