// The React Router framework peer with Sentry, as @sentry/react-router's README and docs set it up: the ssr-rr peer
// copied into `.cache/peers/sentry-rr`, the SDK installed, the files of `bench/peers/sentry-rr/` added (server entry
// with createSentryHandleRequest, handleError and the server instrumentation; client entry; the root error
// boundary; instrument.server.mjs) and the server started with `--import ./instrument.server.mjs`, its documented
// start script. The SDK's major is 10: @sentry/react-router has no 11.x release (ours is @sentry/node 11.12.0).

import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Peer, preparePeerCopy, startSsrRrPeer } from './peer-ssr-rr.ts';

export const SENTRY_REACT_ROUTER = '10.75.2';
const overlay = fileURLToPath(new URL('./peers/sentry-rr/', import.meta.url));
const BOUNDARY = "export { ErrorBoundary } from './error-boundary.jsx';\n";

function addSentry(dir: string): void {
  const installed = join(dir, 'node_modules/@sentry/react-router/package.json');
  if (!existsSync(installed) || JSON.parse(readFileSync(installed, 'utf8')).version !== SENTRY_REACT_ROUTER) {
    execFileSync(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        '--save-exact',
        `@sentry/react-router@${SENTRY_REACT_ROUTER}`,
      ],
      { cwd: dir, stdio: 'inherit' },
    );
  }
  cpSync(overlay, dir, { recursive: true });
  const root = join(dir, 'app/root.jsx');
  if (!readFileSync(root, 'utf8').includes(BOUNDARY)) appendFileSync(root, BOUNDARY);
}

/** The instrumented peer's folder, prepared (undefined when the ssr-rr source is absent). */
export const prepareSentryRrPeer = () => preparePeerCopy('sentry-rr', addSentry);

/** Starts it with the SDK on (`--import`, the DSN given) and pinned as the other contenders. */
export const startSentryRrPeer = (dir: string, dsn: string, pin: string[]): Promise<Peer> =>
  startSsrRrPeer(dir, pin, { nodeArgs: ['--import', './instrument.server.mjs'], env: { SENTRY_DSN: dsn } });
