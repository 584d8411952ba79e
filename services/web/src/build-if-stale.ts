// Run by src/main.ts and `npm start` (prestart), on a fresh clone or after a change: builds dist/ when it is missing
// or older than any source file. Here, not in scripts/, because src/main.ts needs it and src/ imports nothing outside.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const built = join(root, 'dist/server/main.js');
// Test files run in parallel and each may ask for the build: one builds, the others wait for it and re-check.
const lock = join(root, '.build-lock');
const LOCK_STALE_MS = 10 * 60_000;

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

function stale(): { builtAt: number } | undefined {
  let builtAt = 0;
  try {
    builtAt = Math.min(statSync(built).mtimeMs, statSync(join(root, 'dist/client/.vite/manifest.json')).mtimeMs);
  } catch {}
  const sources = Math.max(
    newest(join(root, 'src')),
    newest(join(root, 'vite.config.ts')),
    newest(join(root, 'build')),
    newest(join(root, 'package.json')),
  );
  return builtAt < sources ? { builtAt } : undefined;
}

function holderAlive(): boolean {
  try {
    const holder = Number(readFileSync(join(lock, 'pid'), 'utf8'));
    process.kill(holder, 0);
    return Date.now() - statSync(lock).mtimeMs < LOCK_STALE_MS;
  } catch {
    return false;
  }
}

/** Takes the lock, waiting while a live process holds it; a dead holder's lock is taken over. */
function acquire(): void {
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!holderAlive()) rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
}

if (stale()) {
  acquire();
  try {
    const needed = stale();
    if (needed) {
      process.stdout.write(
        needed.builtAt ? 'web: sources changed since the last build; building\n' : 'web: no build yet; building\n',
      );
      // Always a production build, whatever NODE_ENV the caller runs under (Vitest sets "test").
      execFileSync('npm', ['run', 'build'], {
        cwd: root,
        stdio: 'inherit',
        env: { ...process.env, NODE_ENV: 'production' },
      });
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
