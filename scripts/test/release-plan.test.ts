// What `npm run release` decides before building: tags, release names and repositories from package.json and the
// commit, and a refusal that says what to set when REGISTRY is missing or not a registry path.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { planRelease, ReleaseError } from '../release/plan.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const revision = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();

describe('release plan', () => {
  it('tags each image with its package.json version and the commit, and names the release after both', () => {
    const plan = planRelease({ root, registry: 'registry.example.com:5000/team/ssr-telemetry/', allowDirty: true });
    expect(plan.revision).toBe(revision);
    const short = revision.slice(0, 12);
    expect(plan.services.map((s) => [s.service, s.repository, s.tags, s.release, s.workspace])).toEqual([
      [
        'web',
        'registry.example.com:5000/team/ssr-telemetry/web',
        ['0.1.0', `sha-${short}`],
        `web@0.1.0+${short}`,
        '@app/web',
      ],
      [
        'telemetry-relay',
        'registry.example.com:5000/team/ssr-telemetry/telemetry-relay',
        ['0.1.0', `sha-${short}`],
        `telemetry-relay@0.1.0+${short}`,
        '@app/telemetry-relay',
      ],
    ]);
  });

  it.each([
    [undefined, /REGISTRY is required/],
    ['', /REGISTRY is required/],
    ['https://registry.example.com', /not a registry host/],
    ['Registry.example.com/x', /not a registry host/],
    ['registry.example.com/x:1.0', /not a registry host/],
    ['registry.example.com/a b', /not a registry host/],
  ])('refuses REGISTRY=%s with a message saying what to set', (registry, message) => {
    expect(() => planRelease({ root, registry, allowDirty: true })).toThrow(ReleaseError);
    expect(() => planRelease({ root, registry, allowDirty: true })).toThrow(message);
  });
});
