// The React Router framework peer (/work/shared/peers/ssr-rr: `react-router-serve`, a 50-item list at /items, no
// Sentry), run beside our service in the same benchmark run. Copied into a git-ignored scratch folder
// (services/web/.cache/peers/ssr-rr), installed with `npm ci` and built once; later runs reuse both.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = process.env.SSR_RR_PEER_DIR ?? '/work/shared/peers/ssr-rr';
const scratch = fileURLToPath(new URL('../.cache/peers/ssr-rr/', import.meta.url));

export interface Peer {
  url: string;
  /** The server's process (taskset execs node in its place). */
  pid: number | undefined;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

const sameFile = (a: string, b: string) => existsSync(b) && readFileSync(a).equals(readFileSync(b));

/** Copies, installs and builds the peer when its sources changed (or it was never prepared); undefined if absent. */
export function prepareSsrRrPeer(): string | undefined {
  if (!existsSync(join(SOURCE, 'package.json'))) return undefined;
  const lockChanged = !sameFile(join(SOURCE, 'package-lock.json'), join(scratch, 'package-lock.json'));
  cpSync(SOURCE, scratch, { recursive: true, filter: (path) => !/\/(node_modules|build)(\/|$)/.test(path) });
  const npm = { cwd: scratch, stdio: 'inherit' as const };
  if (lockChanged || !existsSync(join(scratch, 'node_modules'))) {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], npm);
  }
  execFileSync('npm', ['run', 'build', '--silent'], npm);
  return scratch;
}

/** Starts `react-router-serve` on a free loopback port (NODE_ENV=production, as its start script runs it). */
export async function startSsrRrPeer(dir: string, pin: string[] = []): Promise<Peer> {
  const port = await freePort();
  const serve = join(dir, 'node_modules/.bin/react-router-serve');
  const [command, args] = pin.length > 0 ? ['taskset', [...pin, process.execPath, serve]] : [process.execPath, [serve]];
  const child: ChildProcess = spawn(command, [...args, './build/server/index.js'], {
    cwd: dir,
    env: { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let seen = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the ssr-rr peer did not start:\n${seen}`)), 20_000);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(`:${port}`)) {
        clearTimeout(timer);
        child.stdout?.resume();
        child.stderr?.resume();
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('close', (code) => reject(new Error(`the ssr-rr peer exited ${code}:\n${seen}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
