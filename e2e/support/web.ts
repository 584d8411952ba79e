// Starting the web service for browser suites: built once (skipped when dist/ is newer than the sources), then run
// exactly as in production (`node --import instrument.js main.js`) as a real process on a loopback port.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type CaptureServer, type ServiceProcess, spawnService } from '@app/test-kit';

const webDir = fileURLToPath(new URL('../../services/web/', import.meta.url));

let built = false;
export function ensureWebBuilt(): void {
  if (built) return;
  execFileSync(process.execPath, ['scripts/build-if-stale.ts'], { cwd: webDir, stdio: 'inherit' });
  built = true;
}

export async function startWeb(env: Record<string, string> = {}): Promise<ServiceProcess> {
  ensureWebBuilt();
  return spawnService(`${webDir}dist/server/main.js`, {
    cwd: webDir,
    env: { NODE_OPTIONS: `--import ${webDir}dist/server/instrument.js`, LOG_LEVEL: 'info', ...env },
  });
}

/** The web service reporting to a capture server: the Node SDK to its DSN, the browser through the tunnel path. */
export function startWebReportingTo(capture: CaptureServer, env: Record<string, string> = {}): Promise<ServiceProcess> {
  return startWeb({ SENTRY_DSN: capture.dsn(), TUNNEL_TARGET: capture.envelopeUrl('1'), ...env });
}
