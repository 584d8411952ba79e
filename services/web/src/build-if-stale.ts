// Run by src/main.ts and `npm start` (prestart), on a fresh clone or after a change: builds dist/ when it is missing
// or older than any source file. Here, not in scripts/, because src/main.ts needs it and src/ imports nothing outside.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const built = join(root, 'dist/server/main.js');

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

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
if (builtAt < sources) {
  process.stdout.write(
    builtAt ? 'web: sources changed since the last build; building\n' : 'web: no build yet; building\n',
  );
  // Always a production build, whatever NODE_ENV the caller runs under (Vitest sets "test").
  execFileSync('npm', ['run', 'build'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
}
