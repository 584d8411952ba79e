// `npm run release`: builds both images for the current commit, uploads the web's source maps (when the hook
// exists), pushes the images to REGISTRY, writes an SBOM of each, and pins the prod overlay to the pushed digests.
// Env: REGISTRY (required, e.g. registry.example.com/ssr-telemetry), RELEASE_OVERLAY (default
// deploy/k8s/overlays/prod), RELEASE_OUT (default dist/release/<commit>), RELEASE_ALLOW_DIRTY=1 (release a tree with
// uncommitted changes), SOURCE_URL (the images' source label); SENTRY_AUTH_TOKEN, SENTRY_ORG, SENTRY_PROJECT,
// SENTRY_URL for the source-map upload. Exit 0 done, 1 failed, 2 bad input (a placeholder left in the overlay's
// operator values included: the preflight of `npm run deploy:check` runs first, and again on the pinned overlay).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type BuildContext, buildImage, pushImage } from './release/images.ts';
import { pinImages } from './release/overlay.ts';
import { planRelease, ReleaseError, type ServiceRelease } from './release/plan.ts';
import { checkOverlay, describeCheck, placeholderReasons } from './release/preflight.ts';
import { writeSbom } from './release/sbom.ts';
import { uploadSourceMaps } from './release/sourcemaps.ts';

const root = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const log = (line: string) => process.stdout.write(`release| ${line}\n`);

function sourceUrl(): string | undefined {
  if (process.env.SOURCE_URL) return process.env.SOURCE_URL;
  const manifest = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { repository?: { url?: string } };
  return manifest.repository?.url;
}

async function release(): Promise<void> {
  let plan: ReturnType<typeof planRelease>;
  try {
    plan = planRelease({ root, registry: process.env.REGISTRY, allowDirty: process.env.RELEASE_ALLOW_DIRTY === '1' });
  } catch (error) {
    if (!(error instanceof ReleaseError)) throw error;
    process.stderr.write(`release: ${error.message}\n`);
    process.exitCode = 2;
    return;
  }
  const overlayDir = process.env.RELEASE_OVERLAY ?? `${root}/deploy/k8s/overlays/prod`;
  // Before minutes of building: the images are pinned below, so the registry stands in for them here.
  const preflight = await checkOverlay(overlayDir, { ignoreImages: true });
  const registryWhy = placeholderReasons(plan.registry);
  if (registryWhy.length > 0)
    preflight.placeholders.push({ name: 'REGISTRY', value: plan.registry, why: registryWhy.join(', ') });
  if (preflight.placeholders.length > 0) {
    process.stderr.write(`release: refused, ${describeCheck(preflight)}`);
    process.exitCode = 2;
    return;
  }
  const outDir = process.env.RELEASE_OUT ?? `${root}/dist/release/${plan.revision.slice(0, 12)}`;
  mkdirSync(outDir, { recursive: true });
  const context: BuildContext = { root, revision: plan.revision, source: sourceUrl(), log };
  log(`commit ${plan.revision}, pushing to ${plan.registry}`);

  for (const image of plan.services) await buildImage(context, image);
  const web = plan.services.find((s) => s.service === 'web') as ServiceRelease;
  const sourceMaps = await uploadSourceMaps(context, web, outDir);

  const released = [];
  for (const image of plan.services) {
    const digest = await pushImage(context, image);
    const sbom = await writeSbom(root, outDir, image, digest);
    log(`${image.service}: SBOM ${sbom}`);
    released.push({ ...image, digest, reference: `${image.repository}@${digest}`, sbom });
  }
  const overlay = pinImages(
    overlayDir,
    released.map((r) => ({ name: `ssr-telemetry/${r.service}`, newName: r.repository, digest: r.digest })),
  );
  log(`pinned ${overlay} to the pushed digests`);
  const pinned = await checkOverlay(overlayDir);
  if (pinned.placeholders.length > 0) throw new ReleaseError(describeCheck(pinned));
  log(`deploy:check ${describeCheck(pinned).trim()}`);
  const summary = {
    revision: plan.revision,
    registry: plan.registry,
    sourceMaps: sourceMaps ?? null,
    images: released,
  };
  writeFileSync(`${outDir}/release.json`, `${JSON.stringify(summary, null, 2)}\n`);
  log(`summary ${outDir}/release.json`);
}

release().catch((error: unknown) => {
  process.stderr.write(`release: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
