// What a release is made of, decided before anything is built: the version (each service's package.json), the
// commit, the Sentry release name, the image references and their tags. Plain data; main.ts acts on it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export type ServiceName = 'web' | 'telemetry-relay';

export interface ServiceRelease {
  service: ServiceName;
  /** The Dockerfile (the repository root's, for both services) and the target in it that makes this image. */
  dockerfile: string;
  target: string;
  /** The workspace whose production dependencies the image ships (with the shared packages), for the SBOM. */
  workspace: string;
  /** package.json "version": the version people see (image tag, OCI version label). */
  version: string;
  /** `<service>@<version>+<commit, 12 hex>`: SENTRY_RELEASE / RELEASE in the image, the name source maps are uploaded under. */
  release: string;
  /** REGISTRY/<service>, without tag or digest. */
  repository: string;
  /** The version and `sha-<commit, 12 hex>`. */
  tags: string[];
}

export interface ReleasePlan {
  revision: string;
  registry: string;
  services: ServiceRelease[];
}

/** The workspaces each image ships besides its own (the Dockerfiles' `npm ci --workspace` lists). */
export const SHARED_WORKSPACES = ['@app/service-kit', '@app/telemetry-rules'];

const SERVICES: { service: ServiceName; dir: string }[] = [
  { service: 'web', dir: 'services/web' },
  { service: 'telemetry-relay', dir: 'services/telemetry-relay' },
];

/** A registry host (with an optional port) and an optional path: `registry.example.com/ssr-telemetry`. */
const REGISTRY_PATTERN = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?(\/[a-z0-9]+([._-][a-z0-9]+)*)*$/;
const SEMVER_PATTERN = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

export class ReleaseError extends Error {}

function git(root: string, args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
}

export interface PlanInput {
  root: string;
  registry: string | undefined;
  /** Release from a tree with uncommitted changes (the images would not be what the commit says). */
  allowDirty: boolean;
}

export function planRelease({ root, registry, allowDirty }: PlanInput): ReleasePlan {
  if (!registry) {
    throw new ReleaseError('REGISTRY is required: where to push, e.g. REGISTRY=registry.example.com/ssr-telemetry');
  }
  const target = registry.replace(/\/+$/, '');
  if (!REGISTRY_PATTERN.test(target)) {
    throw new ReleaseError(
      `REGISTRY=${registry} is not a registry host with an optional path (lower case), e.g. registry.example.com/ssr-telemetry`,
    );
  }
  const revision = git(root, ['rev-parse', 'HEAD']);
  const changes = git(root, ['status', '--porcelain', '--untracked-files=no']);
  if (changes && !allowDirty) {
    throw new ReleaseError(
      `uncommitted changes; commit them first (the images are labelled with commit ${revision}):\n${changes}`,
    );
  }
  const short = revision.slice(0, 12);
  const services = SERVICES.map(({ service, dir }): ServiceRelease => {
    const manifest = JSON.parse(readFileSync(`${root}/${dir}/package.json`, 'utf8')) as {
      name: string;
      version?: string;
    };
    const version = manifest.version ?? '';
    if (!SEMVER_PATTERN.test(version)) {
      throw new ReleaseError(
        `${dir}/package.json: "version" must be a semantic version, found ${JSON.stringify(version)}`,
      );
    }
    return {
      service,
      dockerfile: 'Dockerfile',
      target: service,
      workspace: manifest.name,
      version,
      release: `${service}@${version}+${short}`,
      repository: `${target}/${service}`,
      tags: [version, `sha-${short}`],
    };
  });
  return { revision, registry: target, services };
}
