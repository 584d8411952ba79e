// Builds a service's image with its release labels, pushes every tag, and reads back the digest the registry stored.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { ReleaseError, type ServiceRelease } from './plan.ts';

const run = promisify(execFile);
/**
 * The Dockerfiles' NODE_IMAGE: the base scripts/machine/setup.sh builds here under its own name, unless NODE_IMAGE
 * names another (a CI that can pull sets node:24-bookworm-slim, the Dockerfiles' default).
 */
export const BASE_IMAGE = process.env.NODE_IMAGE || 'localhost/ssr-telemetry/node:24-bookworm-slim';

/** The Dockerfiles' default SOURCE label unless the root package.json names a repository. */
export interface BuildContext {
  root: string;
  revision: string;
  source: string | undefined;
  log: (line: string) => void;
}

async function docker(context: BuildContext, args: string[]): Promise<string> {
  try {
    const { stdout } = await run('docker', args, {
      cwd: context.root,
      // The legacy builder: Docker 20.10 engines without buildx (docs/deploy.md, "Images").
      env: { ...process.env, DOCKER_BUILDKIT: '0' },
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout.trim();
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new ReleaseError(`docker ${args.join(' ')} failed:\n${stdout}${stderr}`);
  }
}

/**
 * npm inside the build stages needs the CA of a TLS-intercepting proxy where there is one; the Dockerfiles take
 * ./ci-ca.pem when present (gitignored, build stages only). The system bundle holds the public roots too.
 */
function provideBuildCa(root: string): void {
  const system = process.env.BUILD_CA_BUNDLE ?? '/etc/ssl/certs/ca-certificates.crt';
  if (!existsSync(`${root}/ci-ca.pem`) && existsSync(system)) copyFileSync(system, `${root}/ci-ca.pem`);
}

export async function buildImage(context: BuildContext, image: ServiceRelease): Promise<void> {
  provideBuildCa(context.root);
  const args = ['build', '-q', '-f', image.dockerfile, '--target', image.target];
  const buildArgs = {
    NODE_IMAGE: BASE_IMAGE,
    VERSION: image.version,
    RELEASE: image.release,
    REVISION: context.revision,
  };
  for (const [key, value] of Object.entries(buildArgs)) args.push('--build-arg', `${key}=${value}`);
  if (context.source) args.push('--build-arg', `SOURCE=${context.source}`);
  for (const tag of image.tags) args.push('-t', `${image.repository}:${tag}`);
  context.log(`${image.service}: building ${image.tags.map((t) => `${image.repository}:${t}`).join(', ')}`);
  await docker(context, [...args, '.']);
}

/** Pushes every tag; returns the manifest digest (sha256:…) the registry answered with, the same for each tag. */
export async function pushImage(context: BuildContext, image: ServiceRelease): Promise<string> {
  const digests = new Set<string>();
  for (const tag of image.tags) {
    const output = await docker(context, ['push', `${image.repository}:${tag}`]);
    const digest = /digest: (sha256:[0-9a-f]{64})/.exec(output)?.[1];
    if (!digest) throw new ReleaseError(`docker push ${image.repository}:${tag} reported no digest:\n${output}`);
    digests.add(digest);
  }
  const [digest, ...others] = [...digests];
  if (!digest || others.length > 0) {
    throw new ReleaseError(
      `${image.repository}: the tags were pushed with different digests (${[...digests].join(', ')})`,
    );
  }
  context.log(`${image.service}: pushed ${image.repository}@${digest}`);
  return digest;
}

/**
 * Copies a build stage's files out (the web's `web-sourcemaps` stage: the maps of exactly the chunks in the image, from
 * the same cached build layer). `docker build -o` needs BuildKit, so: build the stage, create a container, copy.
 */
export async function extractStage(
  context: BuildContext,
  image: ServiceRelease,
  stage: string,
  from: string,
  to: string,
) {
  const tag = `${image.repository}:${stage}-${context.revision.slice(0, 12)}`;
  const base = ['--build-arg', `NODE_IMAGE=${BASE_IMAGE}`];
  await docker(context, ['build', '-q', '-f', image.dockerfile, ...base, '--target', stage, '-t', tag, '.']);
  // The stage is FROM scratch: no command, so one is named for `create`; the container never runs.
  const container = await docker(context, ['create', tag, 'none']);
  try {
    await docker(context, ['cp', `${container}:${from}`, to]);
  } finally {
    await docker(context, ['rm', container]);
    await docker(context, ['image', 'rm', tag]);
  }
}
