// The web's source-map upload (Sentry): the maps of the web image's own build (the Dockerfile's `web-sourcemaps` stage)
// handed to the `release:sourcemaps` npm script, with SENTRY_RELEASE set to the release the web image reports as,
// so events and maps meet under one name. Without the script (or the stage) nothing is uploaded, and it says so.
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { type BuildContext, extractStage } from './images.ts';
import { ReleaseError, type ServiceRelease } from './plan.ts';

const run = promisify(execFile);
const SCRIPT = 'release:sourcemaps';

function hasScript(manifestPath: string): boolean {
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { scripts?: Record<string, string> };
  return Boolean(manifest.scripts?.[SCRIPT]);
}

/** Runs the upload; returns the directory of maps it was given, or undefined when there is no upload step. */
export async function uploadSourceMaps(
  context: BuildContext,
  web: ServiceRelease,
  outDir: string,
): Promise<string | undefined> {
  const { root, log } = context;
  const where = hasScript(`${root}/package.json`)
    ? []
    : hasScript(`${root}/services/web/package.json`)
      ? ['--workspace', web.workspace]
      : undefined;
  if (!where) {
    log(`web: no ${SCRIPT} script, source maps not uploaded (events of ${web.release} keep minified frames)`);
    return undefined;
  }
  const directory = `${outDir}/web-sourcemaps`;
  if (!readFileSync(`${root}/${web.dockerfile}`, 'utf8').includes(' AS web-sourcemaps')) {
    log(`web: ${web.dockerfile} has no web-sourcemaps stage, source maps not uploaded`);
    return undefined;
  }
  rmSync(directory, { recursive: true, force: true });
  await extractStage(context, web, 'web-sourcemaps', '/sourcemaps', directory);
  log(`web: npm run ${SCRIPT} ${where.join(' ')} (SENTRY_RELEASE=${web.release}, SOURCEMAPS_DIR=${directory})`);
  try {
    const { stdout } = await run('npm', ['run', SCRIPT, ...where], {
      cwd: root,
      env: { ...process.env, SENTRY_RELEASE: web.release, SOURCEMAPS_DIR: directory },
      maxBuffer: 64 * 1024 * 1024,
    });
    if (stdout.trim()) log(stdout.trim());
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new ReleaseError(`npm run ${SCRIPT} failed:\n${stdout}${stderr}`);
  }
  return directory;
}
