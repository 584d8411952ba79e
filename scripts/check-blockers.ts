// `npm run check:blockers [-- <overlay>]`: for the deployment's configured URLs (tunnel, CSP reports, every file the
// web build emits), which filter-list rule would block each (scripts/blockers/check.ts). Without an overlay, the local
// configuration: the web's environment of this shell (SENTRY_DSN, TUNNEL_PATH), else docker compose's DSN, on
// http://localhost:3000. With one (dev, prod or a directory): its rendered web-config on https://<HOST>.
// Exit 0 nothing blocked, 1 a shipped list blocks a URL, 2 bad input or no lists installed.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkUrls, describeFindings } from './blockers/check.ts';
import { deploymentUrls } from './blockers/deployment-urls.ts';
import { overlayWebEnv } from './blockers/overlay-env.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
/** docker-compose.yml's default DSN: what a local run reports with. */
const COMPOSE_DSN = 'http://compose@localhost/1';

async function main(argument: string | undefined): Promise<number> {
  let origin = 'http://localhost:3000';
  let env: Record<string, string> = {
    SENTRY_DSN: process.env.SENTRY_DSN ?? COMPOSE_DSN,
    ...(process.env.TUNNEL_PATH ? { TUNNEL_PATH: process.env.TUNNEL_PATH } : {}),
  };
  if (argument) {
    const named = resolve(root, 'deploy/k8s/overlays', argument);
    ({ origin, env } = await overlayWebEnv(
      /^[a-z0-9-]+$/.test(argument) && existsSync(named) ? named : resolve(argument),
    ));
  }
  // The assets as this checkout builds them (what its images ship).
  execFileSync(process.execPath, ['services/web/src/build-if-stale.ts'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const urls = deploymentUrls(origin, env, `${root}services/web/dist/client`);
  const findings = await checkUrls(urls, `${origin}/`);
  const blocked = findings.filter((f) => f.blocked.length > 0).length;
  process.stdout.write(
    `check:blockers: ${urls.length} URL(s) of ${origin} against uBlock Origin's default lists (Debian's copy)\n${describeFindings(findings)}` +
      `${blocked} blocked; "at risk": passes today, blocked if a rule that exists for one site were applied to all\n`,
  );
  return blocked > 0 ? 1 : 0;
}

try {
  process.exitCode = await main(process.argv[2]);
} catch (error) {
  process.stderr.write(`check:blockers: ${(error as Error).message}\n`);
  process.exitCode = 2;
}
