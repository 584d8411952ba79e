// One place for each file's header comment: a source file opens with `//` lines saying what it is for, before its
// imports. Pure functions over file contents, so the test can feed it a bad file too.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the rule holds (git pathspecs, whose `*` also crosses `/`); vendored peers are other projects' code. */
const SCOPE = [
  'services/*/src/*',
  'packages/*/src/*',
  'services/*/bench/*',
  'services/*/test/*',
  'packages/*/test/*',
  'e2e/*',
  'scripts/*',
  'deploy/*',
];
const SOURCE = /\.(ts|tsx|mts|mjs)$/;
const VENDORED = /^services\/[^/]+\/bench\/peers\//;

/** A `//` line that is an instruction to a tool, not prose: it may follow the header, never stand for it. */
const DIRECTIVE = /^\/\/\s*(@|biome-ignore|#|eslint|prettier|ts-)/;

/** The source files the rule covers, sorted: tracked ones and new ones git does not ignore (so not generated ones). */
export function filesInScope(root: string): string[] {
  const args = ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...SCOPE];
  const listed = execFileSync('git', args, { cwd: root, encoding: 'utf8' });
  return listed
    .split('\0')
    .filter((path) => SOURCE.test(path) && !VENDORED.test(path) && existsSync(join(root, path)))
    .sort();
}

/** What is wrong with a file's first lines, or undefined when it opens with its header comment. */
export function headerProblem(text: string): string | undefined {
  const lines = text.split('\n');
  let index = 0;
  if (lines[index]?.startsWith('#!')) index++;
  while (lines[index]?.startsWith('/// <reference')) index++;
  const first = (lines[index] ?? '').trimEnd();
  if (first === '') return index === lines.length - 1 ? 'empty file' : 'starts with a blank line';
  if (first.startsWith('/*')) return 'starts with a block comment; the header is // lines';
  if (DIRECTIVE.test(first)) return `starts with a directive (${first.slice(0, 40)}); the header goes above it`;
  if (!/^\/\/ ?\S/.test(first)) return `starts with code (${first.slice(0, 40)}), not a // header`;
  return undefined;
}

/** Every file in `files` (relative to `root`) whose opening is not a header, as "path: problem". */
export function headerOffenders(root: string, files: readonly string[]): string[] {
  return files.flatMap((file) => {
    const problem = headerProblem(readFileSync(join(root, file), 'utf8'));
    return problem === undefined ? [] : [`${file}: ${problem}`];
  });
}
