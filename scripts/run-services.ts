// Runs the whole system locally as plain processes, each service's output prefixed with its name:
// `node scripts/run-services.ts start` (what `npm start` runs) or `... dev` (watch and reload, `npm run dev`).
// Ctrl-C (or SIGTERM) stops them all gracefully.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const mode = process.argv[2] === 'dev' ? 'dev' : 'start';

interface Service {
  name: string;
  workspace: string;
  env: Record<string, string>;
}

// Local defaults; anything already in the environment wins.
const services: Service[] = [
  // Local runs accept any loopback DSN; the spool lives in the repo's (gitignored) .cache.
  {
    name: 'relay',
    workspace: 'services/telemetry-relay',
    env: { PORT: '3001', ALLOW_LOOPBACK_DSNS: 'true', SPOOL_DIR: '.cache/relay-spool' },
  },
  // Without an ingress, the web service forwards the browser's telemetry (POST /monitoring) to the relay.
  {
    name: 'web',
    workspace: 'services/web',
    env: { PORT: '3000', TUNNEL_PATH: '/monitoring', TUNNEL_TARGET: 'http://127.0.0.1:3001' },
  },
];

const children = new Map<string, ChildProcess>();
let stopping = false;

for (const service of services) {
  const child = spawn('npm', ['run', '--silent', mode, '--workspace', service.workspace], {
    env: { HOST: '127.0.0.1', ...service.env, ...process.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.set(service.name, child);
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) =>
      process.stdout.write(`${service.name.padEnd(6)}| ${line}\n`),
    );
  }
  child.on('exit', (code, signal) => {
    children.delete(service.name);
    process.stdout.write(`${service.name.padEnd(6)}| exited (${code ?? signal})\n`);
    if (!stopping) stop(typeof code === 'number' && code !== 0 ? code : 1);
    if (children.size === 0) process.exit(process.exitCode ?? 0);
  });
}

function stop(exitCode = 0): void {
  if (stopping) return;
  stopping = true;
  process.exitCode = exitCode;
  for (const child of children.values()) child.kill('SIGTERM');
}

process.on('SIGINT', () => stop());
process.on('SIGTERM', () => stop());
process.stdout.write(`whole system (${mode}): web http://127.0.0.1:3000, relay http://127.0.0.1:3001 — Ctrl-C stops\n`);
