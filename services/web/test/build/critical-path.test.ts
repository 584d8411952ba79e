// The first-load budget check (build/critical-path.ts) over a synthetic build: a manifest, chunks of chosen gzip sizes
// and their source maps, so each way of breaking the budget is shown to fail the check.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { budgetProblems, criticalPaths, routeViewChains, type ViewTree } from '../../build/critical-path.ts';

const table: ViewTree[] = [
  {
    id: 'root',
    view: 'layout.tsx',
    children: [
      { id: 'home', view: 'home.tsx' },
      { id: 'big', view: 'big.tsx' },
    ],
  },
];

interface Chunk {
  file: string;
  /** Incompressible bytes: the chunk's gzip size is about this. */
  bytes: number;
  imports?: string[];
  dynamicImports?: string[];
  sources?: string[];
}

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

/** A build directory (client/ and sourcemaps/) with these manifest entries. */
function syntheticBuild(chunks: Record<string, Chunk>): { client: string; sourcemaps: string } {
  const root = mkdtempSync(join(tmpdir(), 'critical-path-'));
  dirs.push(root);
  const client = join(root, 'client');
  const sourcemaps = join(root, 'sourcemaps');
  mkdirSync(join(client, '.vite'), { recursive: true });
  mkdirSync(join(client, 'assets'));
  mkdirSync(join(sourcemaps, 'assets'), { recursive: true });
  const manifest: Record<string, unknown> = {};
  for (const [key, chunk] of Object.entries(chunks)) {
    manifest[key] = { file: chunk.file, imports: chunk.imports ?? [], dynamicImports: chunk.dynamicImports ?? [] };
    writeFileSync(join(client, chunk.file), randomBytes(chunk.bytes));
    const map = { version: 3, sources: chunk.sources ?? [`../../src/${key}`], mappings: '' };
    writeFileSync(join(sourcemaps, `${chunk.file}.map`), JSON.stringify(map));
  }
  manifest['src/client/entry.tsx'] = { ...(manifest['src/client/entry.tsx'] as object), isEntry: true };
  writeFileSync(join(client, '.vite/manifest.json'), JSON.stringify(manifest));
  return { client, sourcemaps };
}

const KB = 1024;
const base = (): Record<string, Chunk> => ({
  'src/client/entry.tsx': {
    file: 'assets/entry.js',
    bytes: 60 * KB,
    imports: ['_vendor.js'],
    dynamicImports: ['src/client/telemetry/sentry-sdk.ts', 'src/app/layout.tsx', 'src/app/home.tsx', 'src/app/big.tsx'],
  },
  '_vendor.js': { file: 'assets/vendor.js', bytes: 40 * KB, sources: ['../../node_modules/react-dom/index.js'] },
  'src/client/telemetry/sentry-sdk.ts': {
    file: 'assets/sentry-sdk.js',
    bytes: 45 * KB,
    imports: ['src/client/entry.tsx'],
    sources: ['../../node_modules/@sentry/core/build/esm/client.js'],
  },
  'src/app/layout.tsx': { file: 'assets/layout.js', bytes: 5 * KB, imports: ['_vendor.js'] },
  'src/app/home.tsx': { file: 'assets/home.js', bytes: 2 * KB },
  'src/app/big.tsx': { file: 'assets/big.js', bytes: 2 * KB },
});

const check = (chunks: Record<string, Chunk>) => {
  const build = syntheticBuild(chunks);
  const paths = criticalPaths(build.client, build.sourcemaps, table);
  return { paths, problems: budgetProblems(paths) };
};

describe('first-load budget', () => {
  it('lists every route with the views preloaded for it', () => {
    expect(routeViewChains(table)).toEqual([
      { route: 'root', views: ['layout.tsx'] },
      { route: 'home', views: ['layout.tsx', 'home.tsx'] },
      { route: 'big', views: ['layout.tsx', 'big.tsx'] },
    ]);
  });

  it('passes a build whose pages stay under 120 KB with the SDK loaded later', () => {
    const { paths, problems } = check(base());
    expect(problems).toEqual([]);
    const home = paths.find((p) => p.route === 'home');
    expect(home?.files.map((f) => f.file).sort()).toEqual([
      '/assets/entry.js',
      '/assets/home.js',
      '/assets/layout.js',
      '/assets/vendor.js',
    ]);
    // Random bytes do not compress: the sum is about the chunks' sizes (gzip adds a few bytes each).
    expect(home?.gzipBytes).toBeGreaterThan(107 * KB);
    expect(home?.gzipBytes).toBeLessThan(108 * KB);
  });

  it('fails a route whose critical path is over 120 KB, and only that route', () => {
    const chunks = base();
    chunks['src/app/big.tsx'] = { file: 'assets/big.js', bytes: 20 * KB };
    const { problems } = check(chunks);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^big: 125\.\d KB gzip over 120 KB$/);
  });

  it('fails when the SDK chunk is a static import of the entry', () => {
    const chunks = base();
    chunks['src/client/entry.tsx'] = {
      ...(chunks['src/client/entry.tsx'] as Chunk),
      bytes: 10 * KB,
      imports: ['_vendor.js', 'src/client/telemetry/sentry-sdk.ts'],
    };
    const { problems } = check(chunks);
    expect(problems).toContain('home: Sentry SDK code on the critical path (/assets/sentry-sdk.js)');
  });

  it('fails when Sentry code is bundled into a critical chunk under another name', () => {
    const chunks = base();
    chunks['_vendor.js'] = {
      file: 'assets/vendor.js',
      bytes: 40 * KB,
      sources: ['../../node_modules/react-dom/index.js', '../../node_modules/@sentry/browser/build/npm/esm/sdk.js'],
    };
    const { problems } = check(chunks);
    expect(problems).toContain('root: Sentry SDK code on the critical path (/assets/vendor.js)');
  });
});
