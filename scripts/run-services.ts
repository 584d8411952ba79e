// Runs the whole system locally as plain processes, each one's output prefixed with its name:
// `node scripts/run-services.ts start` (what `npm start` runs) or `... dev` (watch and reload, `npm run dev`).
// Like docker compose: web → relay → a local telemetry viewer (Sentry's Spotlight, deploy/viewer, installed into
// deploy/viewer/node_modules on first use), so errors, traces and feedback show at http://localhost:8969 without a
// Sentry account. Ctrl-C (or SIGTERM) stops them all gracefully.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';

const mode = process.argv[2] === 'dev' ? 'dev' : 'start';
const root = fileURLToPath(new URL('..', import.meta.url));
const viewerDir = `${root}deploy/viewer`;
const viewerMain = `${viewerDir}/node_modules/@spotlightjs/spotlight/dist/run.js`;

// Ports as in docker-compose.yml; anything else already in the environment wins.
const ports = {
  web: process.env.WEB_PORT ?? '3000',
  relay: process.env.RELAY_PORT ?? '3001',
  viewer: process.env.VIEWER_PORT ?? '8969',
};

/** The viewer's own pinned dependencies (not a workspace: see deploy/viewer/package.json); false when unavailable. */
function viewerInstalled(): boolean {
  const lock = `${viewerDir}/package-lock.json`;
  if (existsSync(viewerMain) && statSync(viewerMain).mtimeMs >= statSync(lock).mtimeMs) return true;
  process.stdout.write('viewer| installing Spotlight into deploy/viewer/node_modules (first run)…\n');
  try {
    execFileSync('npm', ['ci', '--prefix', viewerDir, '--no-audit', '--no-fund', '--loglevel=error'], {
      stdio: 'inherit',
    });
    return existsSync(viewerMain);
  } catch {
    process.stdout.write('viewer| could not install Spotlight; running without the local telemetry viewer\n');
    return false;
  }
}

interface Service {
  name: string;
  command: string[];
  env: Record<string, string>;
}

const withViewer = process.env.LOCAL_VIEWER !== 'off' && viewerInstalled();
// A loopback DSN on the viewer's port: the relay accepts those (ALLOW_LOOPBACK_DSNS) and sends everything to the
// viewer. Both SDKs post through the relay (the server's to TUNNEL_TARGET + TUNNEL_PATH, see the web's
// server/telemetry/endpoints.ts), as in docker compose.
const localDsn = `http://local@127.0.0.1:${ports.viewer}/1`;
// The relay accepts any loopback DSN, so it cannot derive the tunnel path itself: both get the one the DSN derives.
const tunnelPath = tunnelPathOf(localDsn) as string;
const npmRun = (workspace: string) => ['npm', 'run', '--silent', mode, '--workspace', workspace];

const services: Service[] = [
  ...(withViewer
    ? [{ name: 'viewer', command: [process.execPath, viewerMain, 'server', '--port', ports.viewer], env: {} }]
    : []),
  // Local runs accept loopback DSNs naming the viewer's port (no other local port); the spool lives in the repo's
  // (gitignored) .cache.
  {
    name: 'relay',
    command: npmRun('services/telemetry-relay'),
    env: {
      PORT: ports.relay,
      ALLOW_LOOPBACK_DSNS: ports.viewer,
      TUNNEL_PATH: tunnelPath,
      SPOOL_DIR: '.cache/relay-spool',
      ...(withViewer ? { UPSTREAM_URL: `http://127.0.0.1:${ports.viewer}/api/1/envelope/` } : {}),
    },
  },
  // Without an ingress, the web service forwards the browser's telemetry (POST <tunnel path>, <tunnel path>/security) to
  // the relay, and its own server SDK sends there too.
  {
    name: 'web',
    command: npmRun('services/web'),
    env: {
      PORT: ports.web,
      TUNNEL_PATH: tunnelPath,
      TUNNEL_TARGET: `http://127.0.0.1:${ports.relay}`,
      ...(withViewer
        ? { SENTRY_DSN: localDsn, SENTRY_ENVIRONMENT: 'development', SENTRY_TRACES_SAMPLE_RATE: '1' }
        : {}),
    },
  },
];

const children: ChildProcess[] = [];
let stopping = false;

// Each service runs in a process group of its own (detached), and is stopped by signalling the whole group: `npm run`
// starts the service through `sh -c`, which does not pass a SIGTERM on, so signalling npm alone left the service
// running. The runner exits once every group is empty, i.e. after each service has drained.
for (const service of services) {
  const [command = 'npm', ...args] = service.command;
  const child = spawn(command, args, {
    cwd: root,
    env: { HOST: '127.0.0.1', ...service.env, ...process.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) =>
      process.stdout.write(`${service.name.padEnd(6)}| ${line}\n`),
    );
  }
  child.on('exit', (code, signal) => {
    process.stdout.write(`${service.name.padEnd(6)}| exited (${code ?? signal})\n`);
    if (!stopping) void stop(typeof code === 'number' && code !== 0 ? code : 1);
  });
}

const GROUP_EXIT_TIMEOUT_MS = 40_000; // more than a service's SHUTDOWN_GRACE_MS (25 s by default)

/** Sends `signal` to the child's whole process group (0: only asks whether any process of it is left). */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-(child.pid as number), signal);
    return true;
  } catch {
    return false; // ESRCH: nothing left in the group
  }
}

async function stop(exitCode = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const child of children) signalGroup(child, 'SIGTERM');
  const deadline = Date.now() + GROUP_EXIT_TIMEOUT_MS;
  while (children.some((child) => signalGroup(child, 0)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const child of children) {
    if (signalGroup(child, 'SIGKILL')) process.stdout.write('runner| a service did not stop in time; killed\n');
  }
  process.exit(exitCode);
}

process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
process.stdout.write(
  `whole system (${mode}): web http://127.0.0.1:${ports.web}, relay http://127.0.0.1:${ports.relay}` +
    (withViewer ? `, telemetry viewer http://127.0.0.1:${ports.viewer}` : '') +
    ' — Ctrl-C stops\n',
);
