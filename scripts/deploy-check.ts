// `npm run deploy:check -- <overlay>`: renders deploy/k8s/overlays/<overlay> (or the overlay directory given) and
// fails, naming each one, while any value an operator must set is still a placeholder (scripts/release/preflight.ts);
// warns when a filter list blocks its tunnel path or CSP report URL (scripts/blockers/tunnel-warnings.ts).
// Exit 0 none left, 1 placeholders left, 2 bad input (no such overlay, kustomize failed).
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tunnelWarnings } from './blockers/tunnel-warnings.ts';
import { ReleaseError } from './release/plan.ts';
import { checkOverlay, describeCheck } from './release/preflight.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

async function main(argument: string | undefined): Promise<number> {
  if (!argument) {
    process.stderr.write('usage: npm run deploy:check -- <overlay: dev, prod or a directory>\n');
    return 2;
  }
  const named = resolve(root, 'deploy/k8s/overlays', argument);
  const dir = /^[a-z0-9-]+$/.test(argument) && existsSync(named) ? named : resolve(argument);
  try {
    const check = { ...(await checkOverlay(dir)), overlay: relative(process.cwd(), dir) || dir };
    (check.placeholders.length > 0 ? process.stderr : process.stdout).write(`deploy:check ${describeCheck(check)}`);
    const tunnel = await tunnelWarnings(dir);
    (tunnel.startsWith('WARNING') ? process.stderr : process.stdout).write(`deploy:check ${tunnel}`);
    return check.placeholders.length > 0 ? 1 : 0;
  } catch (error) {
    if (!(error instanceof ReleaseError)) throw error;
    process.stderr.write(`deploy:check: ${error.message}\n`);
    return 2;
  }
}

process.exitCode = await main(process.argv[2]);
