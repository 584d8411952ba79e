// deploy:check's look at the overlay's tunnel path: which path it serves, the one `tunnel: true` derives from its DSN,
// and a warning for each of its URLs (tunnel, CSP reports) a filter list blocks or is one site's rule away from
// blocking. Warnings only: a deployment may choose its path; the lists may be missing on an operator's machine.
import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';
import { checkUrls, describeFindings } from './check.ts';
import { deploymentUrls } from './deployment-urls.ts';
import { overlayWebEnv } from './overlay-env.ts';

export async function tunnelWarnings(dir: string): Promise<string> {
  const { origin, env } = await overlayWebEnv(dir);
  const derived = env.SENTRY_DSN ? tunnelPathOf(env.SENTRY_DSN) : undefined;
  const chosen = env.TUNNEL_PATH === derived ? 'derived from SENTRY_DSN' : `custom; SENTRY_DSN derives ${derived}`;
  const head = `tunnel path ${env.TUNNEL_PATH} (${chosen})`;
  // No client dir: the overlay's URLs, not the build's (`npm run check:blockers -- <overlay>` checks those too).
  const urls = deploymentUrls(origin, env, '/nonexistent');
  let findings: Awaited<ReturnType<typeof checkUrls>>;
  try {
    findings = await checkUrls(urls, `${origin}/`);
  } catch (error) {
    return `${head}; filter lists not checked: ${(error as Error).message}\n`;
  }
  const flagged = findings.filter((f) => f.blocked.length > 0 || f.atRisk.length > 0);
  if (flagged.length === 0) return `${head}: no rule of uBlock Origin's default lists blocks it\n`;
  return `WARNING: ${head}: filter lists would stop telemetry (docs/deploy.md, "The tunnel path"):\n${describeFindings(flagged)}`;
}
