// Which files a page needs: the client entry, its CSS, and the code chunks of the routes matched by the request
// (emitted as <link rel="modulepreload"> so the browser fetches them in parallel with the entry).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface Assets {
  /** Script URL of the client entry. */
  entry: string;
  css: string[];
  /** The entry's CSS itself, written into the head (with the style nonce) instead of `css` links when small. */
  inlineCss?: string;
  /** Module URLs to preload for a page whose matched routes have these view modules (paths under src/app). */
  preloadFor(viewModules: readonly string[]): string[];
  /** Extra tags for the head (the dev server's HMR client). */
  devHead?: (nonce: string) => string;
}

interface ManifestChunk {
  file: string;
  imports?: string[];
  css?: string[];
  isEntry?: boolean;
}

const CLIENT_ENTRY = 'src/client/entry.tsx';
/** Up to this size the stylesheet rides in every document: no request that blocks the first paint. */
export const INLINE_CSS_MAX_BYTES = 16 * 1024;

/** Assets of a production build, from Vite's manifest (dist/client/.vite/manifest.json). */
export function assetsFromManifest(manifestPath: string, base = '/'): Assets {
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, ManifestChunk>;
  const entry = manifest[CLIENT_ENTRY];
  if (!entry) throw new Error(`${manifestPath} has no entry for ${CLIENT_ENTRY}: was the client built?`);
  const closure = (key: string, into: Set<string>): Set<string> => {
    const chunk = manifest[key];
    if (!chunk || into.has(base + chunk.file)) return into;
    into.add(base + chunk.file);
    for (const imported of chunk.imports ?? []) closure(imported, into);
    return into;
  };
  const entryFiles = closure(CLIENT_ENTRY, new Set());
  // dist/client/.vite/manifest.json → dist/client
  const clientDir = dirname(dirname(manifestPath));
  const cssText = (entry.css ?? []).map((file) => readFileSync(join(clientDir, file), 'utf8')).join('\n');
  const inline = cssText.length > 0 && Buffer.byteLength(cssText) <= INLINE_CSS_MAX_BYTES && !/<\/style/i.test(cssText);
  const cache = new Map<string, string[]>();
  return {
    entry: base + entry.file,
    css: (entry.css ?? []).map((file) => base + file),
    ...(inline ? { inlineCss: cssText } : {}),
    preloadFor(viewModules) {
      const key = viewModules.join('|');
      let files = cache.get(key);
      if (!files) {
        // The entry's static imports and the matched views with theirs; the entry itself is the <script> tag.
        const all = new Set(entryFiles);
        for (const view of viewModules) closure(`src/app/${view}`, all);
        all.delete(base + entry.file);
        files = [...all];
        cache.set(key, files);
      }
      return files;
    },
  };
}
