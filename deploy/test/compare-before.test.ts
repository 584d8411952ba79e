// The full stack's renderings against an older commit's, in substance (support/substance.ts): run before and after a
// restructuring of deploy/k8s with DEPLOY_BEFORE=<git ref> npx vitest run --project deploy compare-before. Included
// only when DEPLOY_BEFORE is set (deploy/vitest.config.ts), so no run counts it as skipped.
import { execSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kustomize, parseManifests, type Rendering, renderOverlay, repoRoot } from './support/manifests.ts';
import { substanceOf } from './support/substance.ts';

const before = process.env.DEPLOY_BEFORE ?? 'HEAD';
describe(`the full stack against ${before}`, () => {
  let tree = '';
  beforeAll(() => {
    tree = mkdtempSync(join(tmpdir(), 'deploy-before-'));
    execSync(`git archive --format=tar ${before} deploy/k8s deploy/test/fixtures | tar -x -C ${tree}`, {
      cwd: repoRoot,
    });
  });
  afterAll(() => rmSync(tree, { recursive: true, force: true }));

  it.each(['dev', 'prod', 'ingress'] as Rendering[])('renders %s with the same substance', async (overlay) => {
    const path = overlay === 'ingress' ? 'deploy/test/fixtures/ingress-overlay' : `deploy/k8s/overlays/${overlay}`;
    const old = parseManifests(await kustomize(join(tree, path)));
    expect(substanceOf(await renderOverlay(overlay))).toEqual(substanceOf(old));
  });
});
