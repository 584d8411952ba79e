// Starting the web service for browser suites: built once (skipped when dist/ is newer than the sources), then run
// exactly as in production (`node --import instrument.js main.js`) as a real process on a loopback port.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type CaptureServer, type ServiceProcess, spawnService, startCaptureServer } from '@app/test-kit';
import { launchChromium } from '@app/test-kit/chromium';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

const webDir = fileURLToPath(new URL('../../services/web/', import.meta.url));

let built = false;
export function ensureWebBuilt(): void {
  if (built) return;
  execFileSync(process.execPath, ['src/build-if-stale.ts'], { cwd: webDir, stdio: 'inherit' });
  built = true;
}

export async function startWeb(env: Record<string, string> = {}): Promise<ServiceProcess> {
  ensureWebBuilt();
  return spawnService(`${webDir}dist/server/main.js`, {
    cwd: webDir,
    env: {
      NODE_OPTIONS: `--import ${webDir}dist/server/instrument.js`,
      LOG_LEVEL: 'info',
      // The suites share the CPU with others: a slow loop turn must not shed the requests they test. The shedding
      // suites (load-shedding, shedding-crowd, the observed stack) set the thresholds they test.
      SHED_EVENT_LOOP_DELAY_MS: '0',
      SHED_TURN_WAIT_MS: '0',
      ...env,
    },
  });
}

/** The web service reporting to a capture server: the Node SDK to its DSN, the browser through the tunnel path. */
export function startWebReportingTo(capture: CaptureServer, env: Record<string, string> = {}): Promise<ServiceProcess> {
  return startWeb({ SENTRY_DSN: capture.dsn(), TUNNEL_TARGET: capture.envelopeUrl('1'), ...env });
}

export interface WebSuite {
  web: ServiceProcess;
  browser: Browser;
}
export interface ReportingWebSuite extends WebSuite {
  capture: CaptureServer;
}

/**
 * For one test file: the web service and Chromium (and with `reporting`, a capture server the service reports to),
 * started before its tests and stopped after them. The fields are set once the file's beforeAll has run.
 */
function suiteOf(env: Record<string, string>, reporting: boolean): Partial<ReportingWebSuite> {
  const suite: Partial<ReportingWebSuite> = {};
  beforeAll(async () => {
    if (reporting) suite.capture = await startCaptureServer();
    const started = suite.capture ? startWebReportingTo(suite.capture, env) : startWeb(env);
    [suite.web, suite.browser] = await Promise.all([started, launchChromium()]);
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.web?.kill();
    await suite.capture?.close();
  });
  return suite;
}

export const webSuite = (env: Record<string, string>) => suiteOf(env, false) as WebSuite;
export const reportingWebSuite = (env: Record<string, string>) => suiteOf(env, true) as ReportingWebSuite;
