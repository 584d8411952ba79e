// Bundles page.ts with the repository's bundler (Vite, as services/web builds its client) into a temporary
// directory at test time: one file, the SDK and its replay worker inside, never written into the repository.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const defaultEntry = fileURLToPath(new URL('./page.ts', import.meta.url));

/** The bundle's path: `<temp dir>/app.js`; `page`: another page script to bundle the same way (other suites'). */
export async function bundlePage(page = defaultEntry): Promise<string> {
  const outDir = mkdtempSync(join(tmpdir(), 'sdk-page-'));
  await build({
    configFile: false,
    logLevel: 'warn',
    mode: 'production',
    build: {
      outDir,
      emptyOutDir: false,
      target: 'es2022',
      minify: false,
      lib: { entry: page, formats: ['es'], fileName: () => 'app.js' },
      rolldownOptions: { output: { codeSplitting: false } },
    },
  });
  const file = join(outDir, 'app.js');
  readFileSync(file); // fails here, naming the file, if the build wrote nothing
  return file;
}
