// Brotli (quality 11) and gzip (level 9) copies written beside each built client file, once, at build time: the
// server hands them out as they are (@fastify/static `preCompressed`), so assets cost no CPU per request.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';
import { afterBuild } from './after-build.ts';

const COMPRESSIBLE = /\.(?:js|mjs|css|svg|json|html|txt|map)$/;
/** Below this a compressed copy saves less than its headers cost. */
const MIN_BYTES = 1024;

/** Writes `<file>.br` and `<file>.gz` for every compressible file under `dir`; returns the files compressed. */
export function precompressDirectory(dir: string): string[] {
  const done: string[] = [];
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const path = join(dir, name);
    if (!COMPRESSIBLE.test(name) || !statSync(path).isFile()) continue;
    const raw = readFileSync(path);
    if (raw.length < MIN_BYTES) continue;
    writeFileSync(
      `${path}.br`,
      brotliCompressSync(raw, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 11,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
        },
      }),
    );
    writeFileSync(`${path}.gz`, gzipSync(raw, { level: 9 }));
    done.push(name);
  }
  return done;
}

/** The Vite plugin: after the browser build has written its files, compress those under `assets/`. */
export function precompress(): Plugin {
  return afterBuild('precompress', 'closeBundle', (outDir) => {
    precompressDirectory(join(outDir, 'assets'));
  });
}
