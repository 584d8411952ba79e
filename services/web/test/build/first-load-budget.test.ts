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
import { routeTable } from '../../src/app/route-table.ts';

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
  paths = criticalPaths(client, join(tmp, 'sourcemaps'), routeTable);
  for (const path of paths)
    console.log(`first-load JS of ${path.route}: ${(path.gzipBytes / 1024).toFixed(1)} KB gzip`);
}, 300_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the production build', () => {
  it(`keeps every route's critical-path JavaScript within ${FIRST_LOAD_BUDGET_BYTES / 1024} KB gzip, without Sentry`, () => {
    expect(paths.map((p) => p.route)).toEqual(expect.arrayContaining(['root', 'home', 'catalog-item', 'not-found']));
    expect(budgetProblems(paths)).toEqual([]);
  });

  it('has the SDK as a chunk of its own that the check can find (so the check is not vacuous)', () => {
    const manifest = JSON.parse(readFileSync(join(client, '.vite/manifest.json'), 'utf8'));
    const sdk = manifest[SENTRY_SDK_MODULE] as { file: string } | undefined;
    expect(sdk?.file).toMatch(/^assets\/[\w-]+\.js$/);
    expect(existsSync(join(tmp, 'sourcemaps', `${sdk?.file}.map`))).toBe(true);
  });

  // A chunk named after its module (sentry-sdk-<hash>.js) tells every filter list what it is (decision 048).
  it('names each emitted file by its content hash alone', () => {
    const files = readdirSync(join(client, 'assets'));
    expect(files.length).toBeGreaterThan(10);
    expect(files.filter((name) => !/^[\w-]{8}\.(js|css)(\.br|\.gz)?$/.test(name))).toEqual([]);
  });
});
