// Which chunks get V8's compile hint (build/compile-hints.ts), over generated manifests, and how it is written: the
// first line, once, with the chunk's map one line lower (a map's `mappings` has one `;`-separated group per line).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  COMPILE_HINT,
  chunksCalledOnLoad,
  hintChunksCalledOnLoad,
  withCompileHint,
} from '../../build/compile-hints.ts';

const manifest = {
  'src/client/entry.tsx': { file: 'assets/entry.js', imports: ['_react.js', '_router.js'] },
  '_react.js': { file: 'assets/react.js' },
  '_router.js': { file: 'assets/router.js', imports: ['_react.js'] },
  'src/client/telemetry/sentry-sdk.ts': { file: 'assets/sdk.js', imports: ['_react.js', '_sdk-core.js'] },
  '_sdk-core.js': { file: 'assets/sdk-core.js' },
  'src/app/routes/catalog/view.tsx': { file: 'assets/catalog.js', imports: ['_react.js', '_list.js'] },
  '_list.js': { file: 'assets/list.js' },
  'src/client/telemetry/feedback.ts': { file: 'assets/feedback.js', imports: ['_sdk-core.js'] },
};

describe('the chunks called on load', () => {
  it.each([
    [['src/client/entry.tsx'], ['assets/entry.js', 'assets/react.js', 'assets/router.js']],
    [['src/client/telemetry/sentry-sdk.ts'], ['assets/sdk.js', 'assets/react.js', 'assets/sdk-core.js']],
    [
      ['src/client/entry.tsx', 'src/client/telemetry/sentry-sdk.ts'],
      ['assets/entry.js', 'assets/react.js', 'assets/router.js', 'assets/sdk.js', 'assets/sdk-core.js'],
    ],
  ])('from %j: their chunks and what those import statically, each once; no lazy view', (sources, files) => {
    expect(chunksCalledOnLoad(manifest, sources).sort()).toEqual(files.sort());
  });

  it('fails the build when a source is not in the manifest (renamed: no chunk would be hinted)', () => {
    expect(() => chunksCalledOnLoad(manifest, ['src/client/start.tsx'])).toThrow(/not in the build's manifest/);
  });
});

describe('the hint in a chunk', () => {
  it.each([
    ['two lines', ';{registration}\nexport {};\n', `${COMPILE_HINT}\n;{registration}\nexport {};\n`],
    ['one line', 'export {};', `${COMPILE_HINT}\nexport {};`],
    ['already hinted', `${COMPILE_HINT}\nx\n`, `${COMPILE_HINT}\nx\n`],
  ])('%s', (_, code, expected) => {
    expect(withCompileHint(code)).toBe(expected);
  });

  it("hints the build's chunks called on load, each map still pointing at the same source line; not the others", () => {
    const out = mkdtempSync(join(tmpdir(), 'compile-hints-'));
    try {
      const files = {
        'entry.js': 'src/client/entry.tsx',
        'sdk.js': 'src/client/telemetry/sentry-sdk.ts',
        'view.js': 'v',
      };
      const manifest = Object.fromEntries(
        Object.entries(files).map(([file, source]) => [source, { file: `assets/${file}` }]),
      );
      mkdirs(out);
      writeFileSync(join(out, '.vite/manifest.json'), JSON.stringify(manifest));
      for (const file of Object.keys(files)) {
        // Line 2 of the chunk (`thrown()`) came from line 7 of its source.
        writeFileSync(join(out, 'assets', file), ';{id}\nthrown();\n');
        const map = { version: 3, file, sources: [`${file}.ts`], names: [], mappings: ';AAMA', debugId: 'x' };
        writeFileSync(join(out, 'assets', `${file}.map`), JSON.stringify(map));
      }
      expect(hintChunksCalledOnLoad(out).sort()).toEqual(['assets/entry.js', 'assets/sdk.js']);
      for (const [file, hinted] of [
        ['entry.js', true],
        ['sdk.js', true],
        ['view.js', false],
      ] as const) {
        const code = readFileSync(join(out, 'assets', file), 'utf8');
        expect(code.startsWith(`${COMPILE_HINT}\n`)).toBe(hinted);
        const line = code.split('\n').indexOf('thrown();');
        const map = JSON.parse(readFileSync(join(out, 'assets', `${file}.map`), 'utf8'));
        expect(map.mappings.split(';')[line]).toBe('AAMA');
        expect(map.debugId).toBe('x');
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

function mkdirs(out: string): void {
  for (const dir of ['.vite', 'assets']) mkdirSync(join(out, dir), { recursive: true });
}
