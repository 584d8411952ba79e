// V8's explicit compile hints: `//# allFunctionsCalledOnLoad` in a chunk makes Chromium (136+) compile all its
// functions eagerly on the background thread that streams the script, instead of lazily on the main thread the first
// time each is called (React DOM's start, the SDK's setup). Only on the chunks whose code runs as the page starts:
// the entry with its static imports, and the SDK's chunk with its own (set up at once after load).
// Chromium honours it only as the file's first line (at the end of the Debug ID line it did nothing: the SDK's
// functions were still compiled on the main thread), so it goes above, and the chunk's map moves down a line.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const COMPILE_HINT = '//# allFunctionsCalledOnLoad';

/** The sources whose chunks (and what they import statically) run as the page starts. */
export const CALLED_ON_LOAD = ['src/client/entry.tsx', 'src/client/telemetry/sentry-sdk.ts'];

interface ManifestChunk {
  file: string;
  imports?: string[];
}

/** The files of `sources`' chunks and of every chunk they import statically, from Vite's manifest. */
export function chunksCalledOnLoad(manifest: Record<string, ManifestChunk>, sources: string[]): string[] {
  const files = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || files.has(chunk.file)) return;
    files.add(chunk.file);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  for (const source of sources) {
    if (!manifest[source]) throw new Error(`compile hints: ${source} is not in the build's manifest`);
    visit(source);
  }
  return [...files];
}

/** The chunk with the hint as its first line (once). */
export function withCompileHint(code: string): string {
  return code.startsWith(`${COMPILE_HINT}\n`) ? code : `${COMPILE_HINT}\n${code}`;
}

/** A source map (JSON) of a chunk that got one line more at its top: every mapping one line lower. */
export function shiftedMap(map: string): string {
  const parsed = JSON.parse(map) as { mappings: string };
  return JSON.stringify({ ...parsed, mappings: `;${parsed.mappings}` });
}

/** Hints the chunks called on load in the client build at `outDir` (after the Debug IDs, before maps move out). */
export function hintChunksCalledOnLoad(outDir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(outDir, '.vite/manifest.json'), 'utf8'));
  const files = chunksCalledOnLoad(manifest, CALLED_ON_LOAD);
  for (const file of files) {
    const path = join(outDir, file);
    const code = readFileSync(path, 'utf8');
    const hinted = withCompileHint(code);
    if (hinted === code) continue;
    writeFileSync(path, hinted);
    writeFileSync(`${path}.map`, shiftedMap(readFileSync(`${path}.map`, 'utf8')));
  }
  return files;
}
