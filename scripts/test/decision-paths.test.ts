// Every decision record opens with a status line, and every path its status paragraph names ("Code: `…`") exists
// in the repository, as the doc-link test holds links. Files only.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { decisionRecords, missingPaths, namedPaths, statusParagraph } from '../decision-paths.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the decision records', () => {
  const records = decisionRecords(root);

  it('are found', () => {
    expect(records).toEqual(expect.arrayContaining(['docs/decisions/001-sqlite-spool-and-body-files.md']));
  });

  it.each(records)('%s has a status paragraph, and every path it names exists', (record) => {
    expect(statusParagraph(readFileSync(join(root, record), 'utf8')), 'a "Status:" line').toBeDefined();
    expect(missingPaths(root, record)).toEqual([]);
  });

  it.each(records)('%s is at most 60 lines (long measurements go to the archive)', (record) => {
    expect(readFileSync(join(root, record), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(60);
  });

  it('have slugs of their own (two records with one name read as one in a link)', () => {
    const slugs = records.map((r) => r.replace(/^.*\/\d{3}-/, ''));
    expect(slugs.filter((s, i) => slugs.indexOf(s) !== i)).toEqual([]);
  });
});

describe('the checker', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  /** A tree of files in a fresh directory; the checker reads `r.md` against it. */
  function check(record: string, files: string[]) {
    const base = mkdtempSync(join(tmpdir(), 'decision-paths-'));
    dir = base;
    for (const path of [...files, 'r.md']) {
      mkdirSync(dirname(join(base, path)), { recursive: true });
      writeFileSync(join(base, path), path === 'r.md' ? record : '');
    }
    return missingPaths(base, 'r.md').map((m) => m.path);
  }

  const tree = ['svc/src/spool/spool.ts', 'svc/src/spool/db.ts', 'svc/src/config.ts', 'svc/test/spool.test.ts'];
  it.each<[string, string, string[]]>([
    ['a full path that exists', 'Status: accepted. Code: `svc/src/spool/spool.ts`.', []],
    [
      'a full path that does not',
      'Status: accepted. Code: `svc/src/upstream/spool.ts`.',
      ['svc/src/upstream/spool.ts'],
    ],
    ['a name beside the path before it', 'Status: x. Code: `svc/src/spool/spool.ts`, `db.ts`.', []],
    ['a path from a folder above it', 'Status: x. Code: `svc/src/spool/spool.ts`, `test/spool.test.ts`.', []],
    ['a short name with nothing before it', 'Status: x. Code: `db.ts`.', ['db.ts']],
    [
      'a short name beside a path that was missing',
      'Status: x. Code: `svc/src/gone/a.ts`, `b.ts`.',
      ['svc/src/gone/a.ts', 'b.ts'],
    ],
    ['a span wrapped over two lines', 'Status: x. Code: `svc/src/\nconfig.ts`.', []],
    ['a brace group', 'Status: x. Code: `svc/src/spool/{spool,db,gone}.ts`.', ['svc/src/spool/gone.ts']],
    ['a folder', 'Status: x. Code: `svc/src/spool/`, `svc/src/none/`.', ['svc/src/none/']],
    [
      'identifiers, flags, globs and env vars (not paths)',
      'Status: x. `runService`, `--v8-pool-size=2`, `SHED_*`, `a/*/`.',
      [],
    ],
    ['a path after the status paragraph (not checked)', 'Status: x.\n\n## Context\n\n`svc/gone.ts`', []],
  ])('reports %s', (_, record, expected) => {
    expect(check(record, tree)).toEqual(expected);
  });

  it('finds no status paragraph in a record without one', () => {
    expect(statusParagraph('# 001 Title\n\n## Context\n')).toBeUndefined();
    expect(namedPaths('# 001 Title\n\n`a/b.ts`')).toEqual([]);
  });
});
