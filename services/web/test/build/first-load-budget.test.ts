// Issue 12's first-load budget as a test over a real production build of the browser code: every route's critical
// path (entry + static imports + modulepreloads, gzip) at most 120 KB, and none of the Sentry SDK on it. Built into
// a temporary directory (as bench/bundle-size.ts does), so dist/ and the browser suites' build are left alone.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  budgetProblems,
  criticalPaths,
  FIRST_LOAD_BUDGET_BYTES,
  type RouteCriticalPath,
  SENTRY_SDK_MODULE,
} from '../../build/critical-path.ts';
import { clientRouteTable } from '../../src/framework/browser/client-routes.ts';

const webDir = new URL('../..', import.meta.url).pathname;
const tmp = mkdtempSync(join(tmpdir(), 'web-first-load-'));
const client = join(tmp, 'client');
let paths: RouteCriticalPath[] = [];

beforeAll(() => {
  execFileSync(
    process.execPath,
    [join(webDir, '../../node_modules/vite/bin/vite.js'), 'build', '--outDir', client, '--logLevel', 'error'],
    { cwd: webDir, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } },
  );
  paths = criticalPaths(client, join(tmp, 'sourcemaps'), clientRouteTable);
  for (const path of paths)
    console.log(`first-load JS of ${path.route}: ${(path.gzipBytes / 1024).toFixed(1)} KB gzip`);
}, 300_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the production build', () => {
  it(`keeps every route's critical-path JavaScript within ${FIRST_LOAD_BUDGET_BYTES / 1024} KB gzip, without Sentry`, () => {
    expect(paths.map((p) => p.route)).toEqual(expect.arrayContaining(['root', '_index', 'catalog.$slug', '$']));
    expect(budgetProblems(paths)).toEqual([]);
  });

  it('has the SDK as a chunk of its own that the check can find (so the check is not vacuous)', () => {
    const manifest = JSON.parse(readFileSync(join(client, '.vite/manifest.json'), 'utf8'));
    const sdk = manifest[SENTRY_SDK_MODULE] as { file: string } | undefined;
    expect(sdk?.file).toMatch(/^assets\/[\w-]+\.js$/);
    expect(existsSync(join(tmp, 'sourcemaps', `${sdk?.file}.map`))).toBe(true);
  });

  // build/server-only.ts: the browser's route glob sees loader.server.ts and action.server.ts, never their code (nor
  // their source in the maps uploaded to Sentry). Each marker is text only a loader or an action holds.
  it.each([
    ['a loader', 'diagnostics: loader failure (secret-internal-detail)'],
    ['a deferred part of a loader', 'diagnostics: deferred failure'],
    ['an action', '/preferences?saved=1'],
  ])('holds no code of %s (server-only by its file name)', (_what, marker) => {
    const texts = (dir: string, ext: string) =>
      readdirSync(dir)
        .filter((name) => name.endsWith(ext))
        .map((name) => readFileSync(join(dir, name), 'utf8'));
    expect(texts(join(client, 'assets'), '.js').filter((code) => code.includes(marker))).toEqual([]);
    expect(texts(join(tmp, 'sourcemaps', 'assets'), '.map').filter((map) => map.includes(marker))).toEqual([]);
  });

  // A chunk named after its module (sentry-sdk-<hash>.js) tells every filter list what it is (decision 048).
  it('names each emitted file by its content hash alone', () => {
    const files = readdirSync(join(client, 'assets'));
    expect(files.length).toBeGreaterThan(10);
    expect(files.filter((name) => !/^[\w-]{8}\.(js|css)(\.br|\.gz)?$/.test(name))).toEqual([]);
  });
});
