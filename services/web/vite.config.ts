import { createRequire } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { precompress } from './build/precompress.ts';
import { serverOnlyModules } from './build/server-only.ts';
import { debugIdSourcemaps } from './build/sourcemaps.ts';

const repositoryRoot = resolve(import.meta.dirname, '../..');
const sentryVersion = createRequire(import.meta.url)('@sentry/core/package.json').version as string;

// One config, two builds: `vite build` (browser: hashed chunks with Sentry Debug IDs + manifest in dist/client, their
// hidden source maps in dist/sourcemaps) and `vite build --ssr` (the server bundle in dist/server: main.js, and
// instrument.js for `node --import`).
export default defineConfig(({ isSsrBuild }) => ({
  // The browser build also writes .br and .gz beside each asset (served as they are, see server/http/static-assets.ts).
  // serverOnlyModules empties *.server.ts for the browser only (also in the dev server, which serves both sides).
  plugins: isSsrBuild
    ? [serverOnlyModules(), react()]
    : [serverOnlyModules(), react(), debugIdSourcemaps(), precompress()],
  // Sentry's documented tree-shaking flags: no debug logging code in the bundle. The SDK's version for the envelopes
  // a page sends without it (client/telemetry/early-send.ts), so the entry needs none of its code.
  define: { __SENTRY_DEBUG__: 'false', __SENTRY_SDK_VERSION__: JSON.stringify(sentryVersion) },
  build: isSsrBuild
    ? {
        outDir: 'dist/server',
        emptyOutDir: true,
        target: 'node24',
        rollupOptions: {
          // The benchmark builds its bare baseline server the same way (bench/run.ts sets WEB_SSR_ENTRY).
          input: process.env.WEB_SSR_ENTRY
            ? { bare: process.env.WEB_SSR_ENTRY }
            : { main: 'src/server/main.ts', instrument: 'src/server/instrument.ts' },
          output: { entryFileNames: '[name].js' },
        },
      }
    : {
        outDir: 'dist/client',
        emptyOutDir: true,
        manifest: true,
        target: 'es2022',
        // Maps without a sourceMappingURL comment: browsers never learn of them (build/sourcemaps.ts).
        sourcemap: 'hidden',
        rollupOptions: {
          input: 'src/client/entry.tsx',
          // Sources named from the repository root (services/web/src/…), as Sentry shows them beside the code.
          output: {
            // Files named by content hash alone: the bundler would name a chunk after its module (sentry-sdk-<hash>.js),
            // which says what it is to every filter list (decision 048).
            entryFileNames: 'assets/[hash].js',
            chunkFileNames: 'assets/[hash].js',
            assetFileNames: 'assets/[hash][extname]',
            sourcemapPathTransform: (source, mapPath) => relative(repositoryRoot, resolve(dirname(mapPath), source)),
          },
        },
      },
}));
