// The first-load budget of a production browser build, per route: the JavaScript a page needs before it hydrates
// (the entry, its static imports and the matched views' chunks the server modulepreloads, as server/pages/assets.ts picks
// them), gzip-compressed, and whether any of it is Sentry's SDK (which must load later, decision 007). Byte counts
// of a given build are deterministic, so e2e/web/first-load-budget.test.ts checks them as a test, not a benchmark.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { assetsFromManifest } from '../src/server/pages/assets.ts';

/** Issue 12's budget: first-load JavaScript, gzip, Sentry included. */
export const FIRST_LOAD_BUDGET_BYTES = 120 * 1024;
/** The lazy SDK's module (client/telemetry/telemetry.ts imports it after the page's load). */
export const SENTRY_SDK_MODULE = 'src/client/telemetry/sentry-sdk.ts';

/** A route tree as far as preloads go: each route's view module (a path under src/app). */
export interface ViewTree {
  id: string;
  view: string;
  children?: ViewTree[];
}

export interface RouteCriticalPath {
  /** The route's id and the views matched when it is shown (ancestors first). */
  route: string;
  views: string[];
  files: Array<{ file: string; gzipBytes: number }>;
  gzipBytes: number;
  /** Critical-path files that are the SDK's chunk or hold code of an `@sentry/*` package (by their source maps). */
  sentryFiles: string[];
}

/** Every route of the table with the views the server preloads for it: its own and its ancestors'. */
export function routeViewChains(table: ViewTree[], above: string[] = []): Array<{ route: string; views: string[] }> {
  return table.flatMap((entry) => {
    const views = [...above, entry.view];
    return [{ route: entry.id, views }, ...routeViewChains(entry.children ?? [], views)];
  });
}

const gzipBytes = (code: Buffer) => gzipSync(code, { level: 9 }).length;

/** Whether a chunk's hidden source map (dist/sourcemaps/assets/<name>.map) names a source of an `@sentry/` package. */
function holdsSentryCode(sourcemapsDir: string, file: string): boolean {
  const mapPath = join(sourcemapsDir, `${file}.map`);
  if (!existsSync(mapPath)) return false;
  const { sources = [] } = JSON.parse(readFileSync(mapPath, 'utf8')) as { sources?: string[] };
  return sources.some((source) => /node_modules\/@sentry\//.test(source));
}

/**
 * The critical path of every route of `table` in the build at `clientDir` (dist/client: its .vite/manifest.json and
 * assets/), with the source maps in `sourcemapsDir` (dist/sourcemaps).
 */
export function criticalPaths(clientDir: string, sourcemapsDir: string, table: ViewTree[]): RouteCriticalPath[] {
  const manifestPath = join(clientDir, '.vite/manifest.json');
  const assets = assetsFromManifest(manifestPath);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, { file: string }>;
  const sdkChunk = manifest[SENTRY_SDK_MODULE] ? `/${manifest[SENTRY_SDK_MODULE].file}` : undefined;
  const sizes = new Map<string, number>();
  const sizeOf = (file: string) => {
    let size = sizes.get(file);
    if (size === undefined) {
      size = gzipBytes(readFileSync(join(clientDir, file)));
      sizes.set(file, size);
    }
    return size;
  };
  return routeViewChains(table).map(({ route, views }) => {
    const files = [assets.entry, ...assets.preloadFor(views)].map((file) => ({ file, gzipBytes: sizeOf(file) }));
    return {
      route,
      views,
      files,
      gzipBytes: files.reduce((sum, f) => sum + f.gzipBytes, 0),
      sentryFiles: files.map((f) => f.file).filter((file) => file === sdkChunk || holdsSentryCode(sourcemapsDir, file)),
    };
  });
}

/** What breaks the budget, one line per route and problem (empty when every route keeps it). */
export function budgetProblems(paths: RouteCriticalPath[], limitBytes = FIRST_LOAD_BUDGET_BYTES): string[] {
  return paths.flatMap((path) => [
    ...(path.gzipBytes > limitBytes
      ? [`${path.route}: ${(path.gzipBytes / 1024).toFixed(1)} KB gzip over ${(limitBytes / 1024).toFixed(0)} KB`]
      : []),
    ...(path.sentryFiles.length > 0
      ? [`${path.route}: Sentry SDK code on the critical path (${path.sentryFiles})`]
      : []),
  ]);
}
