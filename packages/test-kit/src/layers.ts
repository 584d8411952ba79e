// A service's import layers as a table, checked against its sources: each service's test/layers.test.ts holds its
// table and calls these. A module imports its own layer and the ones its layer lists, never one above or beside it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';

/** Lowest first. `holds` are paths relative to the source folder: a folder ends with `/`, anything else is a file. */
export interface Layer {
  name: string;
  holds: readonly string[];
  imports: readonly string[];
}

/** Specifiers of every static import, re-export and dynamic import, type-only ones included. */
export function importsOf(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found: string[] = [];
  const statement =
    /^(?:import|export)\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\}|\w+(?:\s*,\s*(?:\{[^}]*\}|\*\s+as\s+\w+))?)\s+from\s+['"]([^'"]+)['"]/gm;
  for (const match of code.matchAll(statement)) found.push(match[1] as string);
  for (const match of code.matchAll(/^import\s+['"]([^'"]+)['"]/gm)) found.push(match[1] as string);
  for (const match of code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(match[1] as string);
  return found;
}

/** How many import or re-export statements a source has, to check that `importsOf` missed none. */
export const importStatementCount = (source: string): number =>
  source.match(/^(?:import|export)\s[^;]*?\sfrom\s/gm)?.length ?? 0;

/** Every import that breaks the table, as "from → to: why"; `table` names where the table is, for the message. */
export function layerViolations(
  files: ReadonlyMap<string, string>,
  layers: readonly Layer[],
  table = 'LAYERS in test/layers.test.ts',
): string[] {
  const layerOf = (file: string) => layers.find(({ holds }) => holds.some((h) => file === h || file.startsWith(h)));
  const problems: string[] = [];
  for (const [file, source] of files) {
    const own = layerOf(file);
    if (!own) {
      problems.push(`${file} is in no layer: add it to ${table}`);
      continue;
    }
    for (const specifier of importsOf(source)) {
      if (!specifier.startsWith('.')) continue; // node:, packages
      const target = posix.normalize(posix.join(posix.dirname(file), specifier));
      const theirs = layerOf(target);
      if (theirs === own) continue;
      if (!theirs || !own.imports.includes(theirs.name)) {
        problems.push(
          `${file} (${own.name}) imports ${target} (${theirs?.name ?? 'outside src'}); ${own.name} may import ${own.imports.join(', ') || 'nothing else'} (${table})`,
        );
      }
    }
  }
  return problems;
}

/** The sources below `dir` with one of `extensions`, keyed by their path relative to `dir` with `/` separators. */
export function sourceFiles(dir: string, extensions: readonly string[] = ['.ts']): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!extensions.some((extension) => entry.endsWith(extension))) continue;
    const path = join(dir, entry);
    files.set(relative(dir, path).split('\\').join('/'), readFileSync(path, 'utf8'));
  }
  return files;
}
