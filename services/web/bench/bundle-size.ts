// First-load JavaScript: every script the browser needs before hydrating a page (the entry, its static imports and
// the matched routes' chunks, as the server preloads them), gzip-compressed, broken down by package via source maps,
// and the share of Sentry's Debug ID snippets. Builds into a temporary directory so dist/ is left as it was (the
// client in <tmp>/client, its hidden source maps in <tmp>/sourcemaps, as in dist/).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { SourceMapConsumer } from 'source-map-js';
import { assetsFromManifest } from '../src/server/pages/assets.ts';

const root = new URL('..', import.meta.url).pathname;

export interface SizeReport {
  page: string;
  totalGzipKb: number;
  /** What the Debug ID snippet and comment in each first-load file add to its gzip size, summed. */
  debugIdGzipKb: number;
  files: Array<{ file: string; gzipKb: number }>;
  byPackage: Record<string, number>;
  deferred: Array<{ file: string; gzipKb: number }>;
}

function packageOf(source: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
  if (!match?.[1]) return 'app (src/)';
  const name = match[1];
  if (name.startsWith('@sentry')) return 'sentry';
  if (name === 'react-dom' || name === 'scheduler') return 'react-dom';
  if (name === 'react-router' || name === 'cookie-es' || name.startsWith('@remix-run')) return 'react-router';
  return name;
}

const DEBUG_ID_SNIPPET = /^;!function\(\)\{try\{[^\n]*_sentryDebugIds[^\n]*\n/;
const DEBUG_ID_COMMENT = /\n\/\/# debugId=[0-9a-f-]+\s*$/;
const gzipBytes = (code: Buffer | string) => gzipSync(code, { level: 9 }).length;

export function measureFirstLoad(views: string[] = ['routes/view.tsx', 'routes/catalog/view.tsx']): SizeReport {
  const tmp = mkdtempSync(join(tmpdir(), 'web-size-'));
  const out = join(tmp, 'client');
  try {
    execFileSync(
      process.execPath,
      [join(root, '../../node_modules/vite/bin/vite.js'), 'build', '--outDir', out, '--logLevel', 'error'],
      { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } },
    );
    const assets = assetsFromManifest(join(out, '.vite/manifest.json'));
    const files = [assets.entry, ...assets.preloadFor(views)];
    const byPackage: Record<string, number> = {};
    let debugIdBytes = 0;
    const sizes = files.map((file) => {
      const code = readFileSync(join(out, file));
      const gzip = gzipBytes(code);
      const text = code.toString('utf8');
      debugIdBytes += gzip - gzipBytes(text.replace(DEBUG_ID_SNIPPET, '').replace(DEBUG_ID_COMMENT, ''));
      // Attribute the file's gzip bytes to packages in proportion to the minified bytes each one produced.
      const map = new SourceMapConsumer(JSON.parse(readFileSync(join(tmp, 'sourcemaps', `${file}.map`), 'utf8')));
      const lines = text.split('\n');
      const raw: Record<string, number> = {};
      let previous: { line: number; column: number; pkg: string } | undefined;
      map.eachMapping((m) => {
        const pkg = m.source
          ? process.env.SIZE_DETAIL
            ? m.source.replace(/.*node_modules\//, '')
            : packageOf(m.source)
          : 'other';
        if (previous && previous.line === m.generatedLine) {
          raw[previous.pkg] = (raw[previous.pkg] ?? 0) + (m.generatedColumn - previous.column);
        }
        previous = { line: m.generatedLine, column: m.generatedColumn, pkg };
      });
      if (previous) {
        const tail = (lines[previous.line - 1]?.length ?? 0) - previous.column;
        raw[previous.pkg] = (raw[previous.pkg] ?? 0) + Math.max(0, tail);
      }
      // Rolldown's runtime helpers have an empty map (build/sourcemaps.ts): all of such a chunk is the bundler's.
      if (Object.keys(raw).length === 0) raw['bundler runtime'] = 1;
      const mapped = Object.values(raw).reduce((a, b) => a + b, 0) || 1;
      for (const [pkg, bytes] of Object.entries(raw)) byPackage[pkg] = (byPackage[pkg] ?? 0) + (gzip * bytes) / mapped;
      return { file, gzipKb: gzip / 1024 };
    });
    const manifest = JSON.parse(readFileSync(join(out, '.vite/manifest.json'), 'utf8')) as Record<
      string,
      { file: string }
    >;
    // Everything else the build emitted is loaded later (the Sentry SDK, the feedback widget, other routes' code).
    const firstLoad = new Set(files);
    const deferred = Object.values(manifest)
      .filter((chunk) => chunk.file.endsWith('.js') && !firstLoad.has(`/${chunk.file}`))
      .map((chunk) => ({
        file: `/${chunk.file}`,
        gzipKb: gzipBytes(readFileSync(join(out, chunk.file))) / 1024,
      }));
    return {
      page: `/catalog (${views.join(' + ')})`,
      totalGzipKb: sizes.reduce((a, s) => a + s.gzipKb, 0),
      debugIdGzipKb: debugIdBytes / 1024,
      files: sizes,
      byPackage: Object.fromEntries(Object.entries(byPackage).map(([k, v]) => [k, v / 1024])),
      deferred,
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const report = measureFirstLoad();
  console.log(`first-load JavaScript for ${report.page}: ${report.totalGzipKb.toFixed(1)} KB gzip`);
  console.log(`  of which Sentry Debug ID snippets: ${report.debugIdGzipKb.toFixed(2)} KB`);
  for (const f of report.files) console.log(`  ${f.file.padEnd(40)} ${f.gzipKb.toFixed(1)} KB`);
  for (const [pkg, kb] of Object.entries(report.byPackage).sort((a, b) => b[1] - a[1])) {
    console.log(`  ${pkg.padEnd(20)} ${kb.toFixed(1)} KB`);
  }
  for (const f of report.deferred) console.log(`  loaded later: ${f.file} ${f.gzipKb.toFixed(1)} KB`);
}
