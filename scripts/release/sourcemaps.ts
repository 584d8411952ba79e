// The hook for the web's source-map upload (Sentry): the `release:sourcemaps` npm script, where one is defined (at
// the root or in @app/web), run with SENTRY_RELEASE set to the release the web image reports as, so events and maps
// meet under one name. Without the script nothing is uploaded, and the release says so.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { ReleaseError, type ServiceRelease } from './plan.ts';

const run = promisify(execFile);
const SCRIPT = 'release:sourcemaps';

function hasScript(manifestPath: string): boolean {
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { scripts?: Record<string, string> };
  return Boolean(manifest.scripts?.[SCRIPT]);
}

/** Runs the upload; returns where it ran, or undefined when no workspace defines the script. */
export async function uploadSourceMaps(
  root: string,
  web: ServiceRelease,
  log: (line: string) => void,
): Promise<string | undefined> {
  const where = hasScript(`${root}/package.json`)
    ? []
    : hasScript(`${root}/services/web/package.json`)
      ? ['--workspace', web.workspace]
      : undefined;
  if (!where) {
    log(`web: no ${SCRIPT} script, source maps not uploaded (events of ${web.release} keep minified frames)`);
    return undefined;
  }
  log(`web: npm run ${SCRIPT} ${where.join(' ')} (SENTRY_RELEASE=${web.release})`);
  try {
    const { stdout } = await run('npm', ['run', SCRIPT, ...where], {
      cwd: root,
      env: { ...process.env, SENTRY_RELEASE: web.release },
      maxBuffer: 64 * 1024 * 1024,
    });
    if (stdout.trim()) log(stdout.trim());
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new ReleaseError(`npm run ${SCRIPT} failed:\n${stdout}${stderr}`);
  }
  return where.length ? web.workspace : 'root';
}
