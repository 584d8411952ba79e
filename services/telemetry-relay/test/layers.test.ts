import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The relay's layers, lowest first: a module imports its own layer and the ones it lists, never one above or
// beside it. A file in no layer fails the test, so a new folder has to be placed here.
const LAYERS: ReadonlyArray<{ name: string; holds: readonly string[]; imports: readonly string[] }> = [
  { name: 'core', holds: ['errors.ts', 'types.ts', 'memory/'], imports: [] },
  { name: 'envelope', holds: ['envelope/'], imports: ['core'] },
  { name: 'ops', holds: ['ops/'], imports: ['core', 'envelope'] },
  { name: 'pii', holds: ['pii/'], imports: [] },
  { name: 'pipeline', holds: ['pipeline/'], imports: ['core', 'envelope', 'ops', 'pii'] },
  { name: 'spool', holds: ['spool/'], imports: ['core', 'envelope'] },
  { name: 'upstream', holds: ['upstream/'], imports: ['core', 'envelope', 'ops', 'spool'] },
  { name: 'routes', holds: ['routes/'], imports: ['core', 'envelope', 'ops', 'pii', 'pipeline', 'upstream'] },
  {
    name: 'service',
    holds: ['config.ts', 'app.ts', 'main.ts'],
    imports: ['core', 'envelope', 'ops', 'pii', 'pipeline', 'spool', 'upstream', 'routes'],
  },
];

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Specifiers of every static import, re-export and dynamic import, type-only ones included. */
function importsOf(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found: string[] = [];
  const statement =
    /^(?:import|export)\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\}|\w+(?:\s*,\s*(?:\{[^}]*\}|\*\s+as\s+\w+))?)\s+from\s+['"]([^'"]+)['"]/gm;
  for (const match of code.matchAll(statement)) found.push(match[1] as string);
  for (const match of code.matchAll(/^import\s+['"]([^'"]+)['"]/gm)) found.push(match[1] as string);
  for (const match of code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(match[1] as string);
  return found;
}

const layerOf = (file: string) => LAYERS.find(({ holds }) => holds.some((h) => file === h || file.startsWith(h)));

/** Every import that breaks the table, as "from → to: why". */
function layerViolations(files: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  for (const [file, source] of files) {
    const own = layerOf(file);
    if (!own) {
      problems.push(`${file} is in no layer: add it to LAYERS in test/layers.test.ts`);
      continue;
    }
    for (const specifier of importsOf(source)) {
      if (!specifier.startsWith('.')) continue; // node:, packages
      const target = posix.normalize(posix.join(posix.dirname(file), specifier));
      const theirs = layerOf(target);
      if (theirs === own) continue;
      if (!theirs || !own.imports.includes(theirs.name)) {
        problems.push(
          `${file} (${own.name}) imports ${target} (${theirs?.name ?? 'outside src'}); ${own.name} may import ${own.imports.join(', ') || 'nothing else of the relay'} (LAYERS in test/layers.test.ts)`,
        );
      }
    }
  }
  return problems;
}

function sourceFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.ts')) continue;
    const path = join(dir, entry);
    files.set(relative(SRC, path).split('\\').join('/'), readFileSync(path, 'utf8'));
  }
  return files;
}

describe('import layers', () => {
  it('every import in src/ runs down the layer table', () => {
    expect(layerViolations(sourceFiles(SRC))).toEqual([]);
  });

  it('finds every import statement (so a missed form cannot hide a violation)', () => {
    for (const [file, source] of sourceFiles(SRC)) {
      const statements = source.match(/^(?:import|export)\s[^;]*?\sfrom\s/gm)?.length ?? 0;
      expect(importsOf(source).length, file).toBeGreaterThanOrEqual(statements);
    }
  });

  it.each([
    ['envelope → pipeline', 'envelope/parse.ts', "import { RelayError } from '../pipeline/errors.ts';"],
    ['upstream → pipeline, type only', 'upstream/forward.ts', "import type { X } from '../pipeline/rate-limit.ts';"],
    [
      'spool → upstream (keeping never sends)',
      'spool/spool.ts',
      "import type { Outage } from '../upstream/outage.ts';",
    ],
    ['spool → ops', 'spool/writer.ts', "import type { RelayMetrics } from '../ops/metrics.ts';"],
    ['routes → service', 'routes/tunnel.ts', "import type { Config } from '../config.ts';"],
    ['core → envelope, re-exported', 'types.ts', "export { parseDsn } from './envelope/dsn.ts';"],
    ['pipeline → routes, dynamic', 'pipeline/read-body.ts', "const m = await import('../routes/tunnel.ts');"],
    ['a file in no layer', 'extra/thing.ts', ''],
  ])('refuses %s', (_name, file, source) => {
    expect(layerViolations(new Map([[file, source]]))).toHaveLength(1);
  });

  it('allows imports down the table and within a layer', () => {
    const files = new Map([
      [
        'routes/tunnel.ts',
        "import { readBody } from '../pipeline/read-body.ts';\nimport { x } from './security-reports.ts';",
      ],
      ['envelope/parse.ts', "import { RelayError } from '../errors.ts';\nimport { isIP } from 'node:net';"],
      ['app.ts', "import { createTunnelHandler } from './routes/tunnel.ts';"],
    ]);
    expect(layerViolations(files)).toEqual([]);
  });
});
