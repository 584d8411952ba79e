// `npm run release:sourcemaps`: uploads the client build's source maps (dist/sourcemaps, written by `npm run build`)
// to Sentry as one artifact bundle, so the browser's minified frames are shown as the original code. Sentry matches
// chunks to maps by their Debug IDs; SENTRY_RELEASE also files the bundle under the release both SDKs report and the
// images are labelled with. Without SENTRY_AUTH_TOKEN (a local build) it says so and exits 0.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createSentrySDK } from 'sentry';

const DEFAULT_DIR = join(import.meta.dirname, '../dist/sourcemaps');

export interface ReleaseSettings {
  token: string;
  org: string;
  project: string;
  url: string;
  release: string | undefined;
  directory: string;
}

/** The settings from the environment, or why there are none (`skip`: nothing to do; `error`: misconfigured). */
export function releaseSettings(
  env: Record<string, string | undefined>,
): { settings: ReleaseSettings } | { skip: string } | { error: string } {
  const token = env.SENTRY_AUTH_TOKEN;
  if (!token) {
    return { skip: 'SENTRY_AUTH_TOKEN is not set: source maps not uploaded (fine for a local build).' };
  }
  const missing = ['SENTRY_ORG', 'SENTRY_PROJECT'].filter((name) => !env[name]);
  if (missing.length > 0) return { error: `SENTRY_AUTH_TOKEN is set but ${missing.join(' and ')} not: set them.` };
  const directory = env.SOURCEMAPS_DIR ?? DEFAULT_DIR;
  if (!existsSync(directory) || !readdirSync(directory, { recursive: true }).some((f) => String(f).endsWith('.map'))) {
    return { error: `no source maps in ${directory}: run \`npm run build -w @app/web\` first.` };
  }
  return {
    settings: {
      token,
      org: env.SENTRY_ORG as string,
      project: env.SENTRY_PROJECT as string,
      url: env.SENTRY_URL || 'https://sentry.io',
      release: env.SENTRY_RELEASE || undefined,
      directory,
    },
  };
}

export async function uploadSourcemaps(settings: ReleaseSettings): Promise<unknown> {
  // `env: {}`: the command's target is exactly these settings, never a stray SENTRY_DSN or a stored login.
  const sentry = createSentrySDK({
    token: settings.token,
    url: settings.url,
    org: settings.org,
    project: settings.project,
    env: {},
  });
  // The chunks already carry their Debug IDs (injected at build); the CLI keeps them and names them in the bundle.
  return sentry.sourcemap.upload({
    directory: settings.directory,
    urlPrefix: '~/',
    ...(settings.release ? { release: settings.release } : {}),
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const outcome = releaseSettings(process.env);
  if ('skip' in outcome) {
    console.log(`release:sourcemaps: ${outcome.skip}`);
  } else if ('error' in outcome) {
    console.error(`release:sourcemaps: ${outcome.error}`);
    process.exitCode = 1;
  } else {
    const { settings } = outcome;
    const target = `${settings.url} (${settings.org}/${settings.project}${settings.release ? `, release ${settings.release}` : ''})`;
    try {
      const result = await uploadSourcemaps(settings);
      console.log(`release:sourcemaps: uploaded ${settings.directory} to ${target}: ${JSON.stringify(result)}`);
    } catch (error) {
      // A release must not go out with maps missing: fail the pipeline, saying what Sentry answered.
      console.error(`release:sourcemaps: upload to ${target} failed: ${(error as Error).message}`);
      process.exitCode = 1;
    }
  }
}
