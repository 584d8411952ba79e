// The sentry-rr peer's pinned install (bench/peers/sentry-rr-lock/): the lock installs the SDK version the bench
// names, and the ssr-rr peer's own dependencies are the ones pinned, so the two peers differ by Sentry alone.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { manifestDrift, SENTRY_REACT_ROUTER, SENTRY_RR_MANIFEST } from '../../bench/peer-sentry-rr.ts';
import { SSR_RR_SOURCE } from '../../bench/peer-ssr-rr.ts';

const read = (file: string) => JSON.parse(readFileSync(join(SENTRY_RR_MANIFEST, file), 'utf8'));

describe('the sentry-rr peer', () => {
  it('locks exactly the manifest, with the SDK at the version the bench names', () => {
    const manifest = read('package.json');
    const lock = read('package-lock.json');
    expect(manifest.dependencies['@sentry/react-router']).toBe(SENTRY_REACT_ROUTER);
    expect(lock.packages[''].dependencies).toEqual(manifest.dependencies);
    expect(lock.packages[''].devDependencies).toEqual(manifest.devDependencies);
    expect(lock.packages['node_modules/@sentry/react-router'].version).toBe(SENTRY_REACT_ROUTER);
  });

  it('names a dependency of the ssr-rr peer that moved away from the pinned one', () => {
    const moved = mkdtempSync(join(tmpdir(), 'ssr-rr-moved-'));
    const { '@sentry/react-router': _sdk, ...own } = read('package.json').dependencies;
    const dependencies = { ...own, 'react-router': '9.0.0', extra: '1.0.0' };
    writeFileSync(join(moved, 'package.json'), JSON.stringify({ ...read('package.json'), dependencies }));
    expect(manifestDrift(moved)).toEqual([
      'dependencies.react-router 9.0.0 (pinned 8.4.0)',
      'dependencies.extra 1.0.0 (pinned undefined)',
    ]);
  });

  it.runIf(existsSync(join(SSR_RR_SOURCE, 'package.json')))('pins what the ssr-rr peer depends on now', () => {
    expect(manifestDrift(SSR_RR_SOURCE)).toEqual([]);
  });
});
