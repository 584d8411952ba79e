// The React Router framework peer (/work/shared/peers/ssr-rr: `react-router-serve`, a 50-item list at /items, no
// Sentry), run beside our service in the same benchmark run. Copied into a git-ignored scratch folder
// (services/web/.cache/peers/ssr-rr), installed with `npm ci` and built once; later runs reuse both.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from '@app/test-kit';

export const SSR_RR_SOURCE = process.env.SSR_RR_PEER_DIR ?? '/work/shared/peers/ssr-rr';
const peers = fileURLToPath(new URL('../.cache/peers/', import.meta.url));

export interface Peer {
  url: string;
  /** The server's process (taskset execs node in its place). */
  pid: number | undefined;
  stop(): Promise<void>;
}

export interface PeerStart {
  /** Where morgan's request log goes: `discard` (/dev/null, as a process manager keeping no logs), or `pipe` (read and
   * dropped by the bench, as the harness did before issue 26: each line then wakes the bench's process). */
  stdout?: 'discard' | 'pipe';
  /** Node flags before react-router-serve, e.g. `--import ./instrument.server.mjs` (its Sentry start script). */
  nodeArgs?: string[];
  env?: Record<string, string>;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    }).on('error', () => resolve(false));
  });

const sameFile = (a: string, b: string) => existsSync(b) && readFileSync(a).equals(readFileSync(b));

/** Copies SSR_RR_SOURCE into `.cache/peers/<name>` and `npm ci`s it when its lock changed; then `overlay` (files to add) and
 * `npm run build`. `manifest` names a folder whose package.json and package-lock.json replace SSR_RR_SOURCE's (a peer with
 * more dependencies, pinned in this repository). Undefined when SSR_RR_SOURCE is absent. */
export function preparePeerCopy(
  name: string,
  overlay?: (dir: string) => void,
  manifest = SSR_RR_SOURCE,
): string | undefined {
  if (!existsSync(join(SSR_RR_SOURCE, 'package.json'))) return undefined;
  const scratch = join(peers, name);
  const lock = join(manifest, 'package-lock.json');
  const lockChanged = !sameFile(lock, join(scratch, 'package-lock.source.json'));
  cpSync(SSR_RR_SOURCE, scratch, { recursive: true, filter: (path) => !/\/(node_modules|build)(\/|$)/.test(path) });
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(manifest, file), join(scratch, file));
  cpSync(lock, join(scratch, 'package-lock.source.json'));
  const npm = { cwd: scratch, stdio: 'inherit' as const };
  if (lockChanged || !existsSync(join(scratch, 'node_modules'))) {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], npm);
  }
  overlay?.(scratch);
  execFileSync('npm', ['run', 'build', '--silent'], npm);
  return scratch;
}

/** Copies, installs and builds the peer when its sources changed (or it was never prepared); undefined if absent. */
export const prepareSsrRrPeer = () => preparePeerCopy('ssr-rr');

/** Starts `react-router-serve` on a free loopback port as its docs run it in production: NODE_ENV=production, its
 * request log to /dev/null unless `stdout: 'pipe'`. */
export async function startSsrRrPeer(dir: string, pin: string[] = [], start: PeerStart = {}): Promise<Peer> {
  const port = await freePort();
  const serve = join(dir, 'node_modules/.bin/react-router-serve');
  const node = [process.execPath, ...(start.nodeArgs ?? []), serve, './build/server/index.js'];
  const [command = '', ...args] = pin.length > 0 ? ['taskset', ...pin, ...node] : node;
  const child: ChildProcess = spawn(command, args, {
    cwd: dir,
    env: { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', ...start.env },
    stdio: ['ignore', start.stdout === 'pipe' ? 'pipe' : 'ignore', 'pipe'],
  });
  let seen = '';
  const onData = (chunk: Buffer) => {
    seen += chunk.toString();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  let exited: number | null | undefined;
  child.on('exit', (code) => {
    exited = code;
  });
  const deadline = Date.now() + 20_000;
  while (!(await accepts(port))) {
    if (exited !== undefined) throw new Error(`the peer in ${dir} exited ${exited}:\n${seen}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the peer in ${dir} did not start:\n${seen}`);
    }
    await sleep(100);
  }
  // Keep draining what is piped without keeping it.
  child.stdout?.off('data', onData).resume();
  child.stderr?.off('data', onData).resume();
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
