// A CycloneDX SBOM of what an image ships: the production dependency closure of the service's workspace and the
// shared packages, which is exactly what its Dockerfile keeps (`npm ls --omit=dev` over the same workspaces).
// @cyclonedx/cyclonedx-npm rather than npm's built-in `npm sbom`: the latter drops packages of that closure in a
// workspace tree (undici, ajv, the @app packages) and lists test-kit, which no image has (docs/deploy.md, "Releasing").
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { ReleaseError, type ServiceRelease, SHARED_WORKSPACES } from './plan.ts';

const run = promisify(execFile);

interface Bom {
  metadata: { component?: Record<string, unknown> };
}

/** The CLI's script, run with this Node (the package exports only its library entry, so the path is built). */
function cyclonedxCli(root: string): string {
  const entry = createRequire(`${root}/package.json`).resolve('@cyclonedx/cyclonedx-npm');
  return join(dirname(entry), 'bin', 'cyclonedx-npm-cli.js');
}

/** Writes `<dir>/<service>.cdx.json` describing the pushed image (its digest in the subject's purl); returns the path. */
export async function writeSbom(root: string, dir: string, image: ServiceRelease, digest: string): Promise<string> {
  const path = `${dir}/${image.service}.cdx.json`;
  const workspaces = [image.workspace, ...SHARED_WORKSPACES].flatMap((w) => ['--workspace', w]);
  const args = ['--omit', 'dev', ...workspaces, '--output-reproducible', '--validate', '--output-file', path];
  try {
    await run(process.execPath, [cyclonedxCli(root), ...args], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new ReleaseError(`cyclonedx-npm for ${image.workspace} failed:\n${stderr || String(error)}`);
  }
  // The subject is the image, not the private root package the tool starts from (bom-ref kept: dependencies use it).
  const bom = JSON.parse(readFileSync(path, 'utf8')) as Bom;
  const repositoryUrl = encodeURIComponent(image.repository);
  bom.metadata.component = {
    ...bom.metadata.component,
    type: 'container',
    name: image.service,
    version: image.release,
    purl: `pkg:oci/${image.service}@${encodeURIComponent(digest)}?repository_url=${repositoryUrl}&tag=${image.version}`,
  };
  writeFileSync(path, `${JSON.stringify(bom, null, 2)}\n`);
  return path;
}
