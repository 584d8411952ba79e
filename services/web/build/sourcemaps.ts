// Debug IDs and hidden source maps for the browser build. After Vite has written its files, Sentry's CLI
// (`sentry sourcemap inject`, the npm package `sentry`: JavaScript and WebAssembly, no binary to download) puts a
// Debug ID into every chunk (a snippet that registers it at runtime, and a `//# debugId=` comment) and into its map.
// Then each `assets/*.map` moves out of the served directory into `<outDir>/../sourcemaps/assets/`, beside a copy of
// its chunk: exactly what `npm run release:sourcemaps` uploads. The chunks have no `sourceMappingURL` comment.
// Why the CLI and not Sentry's Vite plugin: README, "Sentry: releases and readable browser stack traces".
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createSentrySDK } from 'sentry';
import type { Plugin } from 'vite';
import { afterBuild } from './after-build.ts';
import { hintChunksCalledOnLoad } from './compile-hints.ts';
import { rewriteDebugIdSnippets } from './debug-id-snippet.ts';

/** Where the maps of a client build in `outDir` go (dist/client → dist/sourcemaps). */
export function sourcemapsDirFor(outDir: string): string {
  return join(dirname(outDir), 'sourcemaps');
}

/**
 * A chunk the bundler wrote without a map (Rolldown's runtime helpers, split out when a lazy chunk shares them) gets
 * an empty one, so the CLI gives it a Debug ID like every other chunk.
 */
export function mapChunksWithoutMaps(assets: string): string[] {
  const written: string[] = [];
  for (const name of readdirSync(assets)) {
    if (!name.endsWith('.js') || existsSync(join(assets, `${name}.map`))) continue;
    const map = { version: 3, file: name, sources: [], sourcesContent: [], names: [], mappings: '' };
    writeFileSync(join(assets, `${name}.map`), JSON.stringify(map));
    written.push(name);
  }
  return written;
}

/**
 * Injects Debug IDs into the chunks under `assets` and their maps (deterministic: derived from the content), then
 * makes the CLI's snippet register them without reading an Error's stack (debug-id-snippet.ts).
 */
export async function injectDebugIds(assets: string): Promise<void> {
  mapChunksWithoutMaps(assets);
  // `env: {}`: injecting is local work; no setting from the environment may change it.
  await createSentrySDK({ env: {} }).sourcemap.inject({ directory: assets, ext: '.js' });
  rewriteDebugIdSnippets(assets);
}

/** Moves every `.map` under `outDir/assets` to the sourcemaps directory with its chunk; returns the chunks. */
export function moveSourcemaps(outDir: string): string[] {
  const assets = join(outDir, 'assets');
  const target = join(sourcemapsDirFor(outDir), 'assets');
  rmSync(sourcemapsDirFor(outDir), { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  const moved: string[] = [];
  for (const name of readdirSync(assets)) {
    if (!name.endsWith('.map')) continue;
    const chunk = name.slice(0, -'.map'.length);
    renameSync(join(assets, name), join(target, name));
    if (existsSync(join(assets, chunk))) copyFileSync(join(assets, chunk), join(target, chunk));
    moved.push(chunk);
  }
  return moved;
}

/**
 * The Vite plugin; writeBundle runs before `precompress`'s closeBundle, so the .br/.gz copies carry the IDs (and the
 * compile hints, compile-hints.ts).
 */
export function debugIdSourcemaps(): Plugin {
  return afterBuild('debug-id-sourcemaps', 'writeBundle', async (outDir) => {
    await injectDebugIds(join(outDir, 'assets'));
    // Here, so that the chunks copied beside their maps are the ones served.
    hintChunksCalledOnLoad(outDir);
    moveSourcemaps(outDir);
  });
}
