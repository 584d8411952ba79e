// The paths a decision record's status paragraph names ("Code: `…`") must exist, or a reader follows it to nothing.
// Pure functions over file contents, so the test can feed it a broken record too.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/** A path a record names that is not in the repository. */
export interface MissingPath {
  record: string;
  path: string;
}

/** Looks like a file or folder, not an identifier, a flag or an env var: a `/` or a known file extension. */
const PATHLIKE = /^[\w.@{},/-]+$/;
const FILE = /\.(ts|tsx|mts|mjs|js|json|ya?ml|md|sh|env|toml|html|css)$/;

/** `a/{b,c}.ts` → `a/b.ts`, `a/c.ts` (one brace group, as the records write them). */
function expandBraces(path: string): string[] {
  const m = /^(.*)\{([^}]*)\}(.*)$/.exec(path);
  return m ? (m[2] ?? '').split(',').map((part) => `${m[1]}${part.trim()}${m[3]}`) : [path];
}

/** The status paragraph: from the `Status:` line to the first blank line. */
export function statusParagraph(markdown: string): string | undefined {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.startsWith('Status:'));
  if (start < 0) return undefined;
  const end = lines.findIndex((line, index) => index > start && line.trim() === '');
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** The path-like code spans of the status paragraph (a span wrapped over two lines is joined). */
export function namedPaths(markdown: string): string[] {
  const paragraph = statusParagraph(markdown) ?? '';
  return [...paragraph.matchAll(/`([^`]+)`/g)]
    .map((m) => (m[1] ?? '').replaceAll('\n', ''))
    .filter((span) => PATHLIKE.test(span) && !span.includes('*') && (span.includes('/') || FILE.test(span)))
    .flatMap(expandBraces);
}

/**
 * Paths of `record` (relative to `root`) that resolve nowhere. Records shorten a path after the first, so a short one
 * is tried against the root and then against every folder above each path already found (`spool-db.ts` after
 * `services/telemetry-relay/src/spool/spool.ts`, `test/x.test.ts` after a service's `src/`).
 */
export function missingPaths(root: string, record: string): MissingPath[] {
  const bases = new Set<string>(['']);
  const missing: MissingPath[] = [];
  for (const path of namedPaths(readFileSync(join(root, record), 'utf8'))) {
    const clean = path.replace(/\/$/, '');
    const found = [...bases].map((base) => normalize(join(base, clean))).find((p) => existsSync(join(root, p)));
    if (found === undefined) {
      missing.push({ record, path });
      continue;
    }
    if (statSync(join(root, found)).isDirectory()) bases.add(found);
    for (let dir = dirname(found); dir !== '.' && dir !== '/'; dir = dirname(dir)) bases.add(dir);
  }
  return missing;
}

/** The records of `folder` (relative to `root`): `NNN-*.md`, sorted. */
export function decisionRecords(root: string, folder = 'docs/decisions'): string[] {
  return readdirSync(join(root, folder))
    .filter((name) => /^\d{3}-.+\.md$/.test(name))
    .sort()
    .map((name) => `${folder}/${name}`);
}
