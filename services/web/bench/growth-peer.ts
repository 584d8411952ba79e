// The React Router peer for the growth bench: a copy of the prepared ssr-rr peer (peer-ssr-rr.ts) whose items.json
// holds 500 entries and whose /items loader honours `?limit=`, so it serves 10, 50 and 500 items as our
// `/catalog?limit=N` does. Built in the git-ignored .cache/peers/ssr-rr-growth; node_modules is the prepared peer's.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { longerPeerItems, peerRouteWithLimit } from './growth-lists.ts';
import { prepareSsrRrPeer } from './peer-ssr-rr.ts';

const scratch = fileURLToPath(new URL('../.cache/peers/ssr-rr-growth/', import.meta.url));

/** The growth peer's folder, built; undefined when the shared peer is absent. */
export function prepareGrowthPeer(): string | undefined {
  const peer = prepareSsrRrPeer();
  if (!peer) return undefined;
  rmSync(scratch, { recursive: true, force: true });
  cpSync(peer, scratch, { recursive: true, filter: (path) => !/\/(node_modules|build)(\/|$)/.test(path) });
  symlinkSync(join(peer, 'node_modules'), join(scratch, 'node_modules'));
  const items = join(scratch, 'app/items.json');
  writeFileSync(items, longerPeerItems(readFileSync(items, 'utf8')));
  const route = join(scratch, 'app/routes/items.jsx');
  writeFileSync(route, peerRouteWithLimit(readFileSync(route, 'utf8')));
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: scratch, stdio: 'inherit' });
  if (!existsSync(join(scratch, 'build/server/index.js'))) throw new Error('the growth peer did not build');
  return scratch;
}
