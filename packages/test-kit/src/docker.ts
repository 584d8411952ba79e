// The docker CLI as the container suites and the growth benches use it: run a command, and build one of the
// repository's images from this checkout the one way that works everywhere (legacy builder, the proxy CA for npm).
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
// From the module's own path, not `new URL(…)`: under happy-dom the global URL is not Node's.
const repoRoot = `${join(dirname(fileURLToPath(import.meta.url)), '../../..')}/`;

/**
 * The base the Dockerfiles build FROM (their NODE_IMAGE argument; default the official node:24-bookworm-slim): the
 * one scripts/machine/setup.sh builds under its own name, unless NODE_IMAGE names another.
 */
export const BASE_IMAGE = process.env.NODE_IMAGE || 'localhost/ssr-telemetry/node:24-bookworm-slim';

/** Runs the docker CLI in the repository's root; throws with its output on failure. */
export async function docker(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<string> {
  try {
    const { stdout } = await run('docker', args, {
      cwd: options.cwd ?? repoRoot,
      env: options.env ?? process.env,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout.trim();
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`docker ${args.join(' ')} failed:\n${stdout}${stderr}`);
  }
}

/**
 * npm inside a build stage needs the CA bundle of the TLS-intercepting proxy some machines sit behind (CI's does).
 * The Dockerfiles pick up ./ci-ca.pem when it exists (gitignored, build stages only); provide it from the system
 * bundle, which also holds the public roots, so it is harmless where there is no proxy.
 */
function ensureBuildCa(): void {
  const target = `${repoRoot}ci-ca.pem`;
  const system = process.env.BUILD_CA_BUNDLE ?? '/etc/ssl/certs/ca-certificates.crt';
  if (!existsSync(target) && existsSync(system)) copyFileSync(system, target);
}

export interface ImageBuild {
  /** The name to tag it with, e.g. `ssr-telemetry/web:e2e`. */
  tag: string;
  /** A stage of the Dockerfile (`web`, `telemetry-relay`, `web-sourcemaps`); none builds its last stage. */
  target?: string;
  /** Relative to the repository's root, which is the build context. */
  dockerfile?: string;
  /** More `--build-arg`s; NODE_IMAGE is BASE_IMAGE unless given here. */
  buildArgs?: Record<string, string>;
}

/**
 * Builds an image from this checkout (legacy builder: works on Docker 20.10 without buildx) and returns its tag.
 * Docker's layer cache makes a second build of the same tree a cache hit of about a second, so callers just ask.
 */
export async function buildImage(build: ImageBuild): Promise<string> {
  ensureBuildCa();
  const started = Date.now();
  const args = ['build', '-q', '-f', build.dockerfile ?? 'Dockerfile'];
  if (build.target) args.push('--target', build.target);
  for (const [key, value] of Object.entries({ NODE_IMAGE: BASE_IMAGE, ...build.buildArgs })) {
    args.push('--build-arg', `${key}=${value}`);
  }
  await docker([...args, '-t', build.tag, '.'], { env: { ...process.env, DOCKER_BUILDKIT: '0' } });
  const size = Number(await docker(['image', 'inspect', '-f', '{{.Size}}', build.tag]));
  process.stdout.write(`image ${build.tag}: ${(size / 1e6).toFixed(0)} MB, built in ${Date.now() - started} ms\n`);
  return build.tag;
}
