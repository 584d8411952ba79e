// The web build's emitted files by source module (Vite's manifest): suites find a chunk by what it holds, never by a
// name the bundler chose (assets are named by content hash alone, so no filter list can name them by what they are).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ensureWebBuilt } from './web.ts';

const manifestPath = fileURLToPath(new URL('../../services/web/dist/client/.vite/manifest.json', import.meta.url));

/** The URL path (`/assets/<hash>.js`) of the chunk built from `module` (a path under services/web). */
let manifest: Record<string, { file: string }> | undefined;
export function chunkPath(module: string): string {
  ensureWebBuilt();
  manifest ??= JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, { file: string }>;
  const file = manifest[module]?.file;
  if (!file) throw new Error(`no chunk for ${module} in ${manifestPath}`);
  return `/${file}`;
}

/** The lazily loaded Sentry SDK's chunk. */
export const sdkChunkPath = () => chunkPath('src/client/telemetry/sentry-sdk.ts');
