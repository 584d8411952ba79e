// The React Router framework peer with Sentry, as @sentry/react-router's README and docs set it up: the ssr-rr peer
// copied into `.cache/peers/sentry-rr`, installed with `npm ci` from the package.json and lock pinned in
// `bench/peers/sentry-rr-lock/` (its own dependencies plus the SDK, so no version floats), the files of
// `bench/peers/sentry-rr/` added (server entry with createSentryHandleRequest, handleError and the server
// instrumentation; client entry; the root error boundary; instrument.server.mjs) and the server started with
// `--import ./instrument.server.mjs`, its documented start script. The SDK's major is 10: @sentry/react-router has
// no 11.x release (ours is @sentry/node 11.12.0).

import { appendFileSync, cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Peer, preparePeerCopy, SSR_RR_SOURCE, startSsrRrPeer } from './peer-ssr-rr.ts';

export const SENTRY_REACT_ROUTER = '10.75.2';
const overlay = fileURLToPath(new URL('./peers/sentry-rr/', import.meta.url));
/** The ssr-rr peer's package.json with the SDK added, and the lock `npm install --package-lock-only` made of it. */
export const SENTRY_RR_MANIFEST = fileURLToPath(new URL('./peers/sentry-rr-lock/', import.meta.url));
const BOUNDARY = "export { ErrorBoundary } from './error-boundary.jsx';\n";

function addSentry(dir: string): void {
  const installed = join(dir, 'node_modules/@sentry/react-router/package.json');
  if (JSON.parse(readFileSync(installed, 'utf8')).version !== SENTRY_REACT_ROUTER) {
    throw new Error(
      `${SENTRY_RR_MANIFEST}package-lock.json does not install @sentry/react-router ${SENTRY_REACT_ROUTER}`,
    );
  }
  cpSync(overlay, dir, { recursive: true });
  const root = join(dir, 'app/root.jsx');
  if (!readFileSync(root, 'utf8').includes(BOUNDARY)) appendFileSync(root, BOUNDARY);
}

/**
 * The ssr-rr peer's own dependencies must be the pinned manifest's, or the two peers would differ by more than Sentry:
 * what differs, or nothing (regenerate the lock as `bench/peers/sentry-rr-lock/README.md` says when it does).
 */
export function manifestDrift(source: string): string[] {
  const read = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const [ours, theirs] = [read(SENTRY_RR_MANIFEST), read(source)];
  const drift: string[] = [];
  for (const field of ['dependencies', 'devDependencies']) {
    const { '@sentry/react-router': _sdk, ...pinned } = ours[field] ?? {};
    for (const name of new Set([...Object.keys(pinned), ...Object.keys(theirs[field] ?? {})])) {
      if (pinned[name] !== theirs[field]?.[name])
        drift.push(`${field}.${name} ${theirs[field]?.[name]} (pinned ${pinned[name]})`);
    }
  }
  return drift;
}

/** The instrumented peer's folder, prepared (undefined when the ssr-rr source is absent). */
export function prepareSentryRrPeer(): string | undefined {
  const drift = existsSync(join(SSR_RR_SOURCE, 'package.json')) ? manifestDrift(SSR_RR_SOURCE) : [];
  if (drift.length > 0)
    throw new Error(`the ssr-rr peer's dependencies moved (${drift.join(', ')}): re-pin ${SENTRY_RR_MANIFEST}`);
  return preparePeerCopy('sentry-rr', addSentry, SENTRY_RR_MANIFEST);
}

/** Starts it with the SDK on (`--import`, the DSN given) and pinned as the other contenders. */
export const startSentryRrPeer = (dir: string, dsn: string, pin: string[]): Promise<Peer> =>
  startSsrRrPeer(dir, pin, { nodeArgs: ['--import', './instrument.server.mjs'], env: { SENTRY_DSN: dsn } });
