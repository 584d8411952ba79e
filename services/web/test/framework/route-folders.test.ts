// The route convention (framework/shared/route-folders.ts): folder names to paths, directories to nesting, and the
// mistakes it refuses at startup; then the example's folders, found by the real globs, as the old declared table was.
import { describe, expect, it } from 'vitest';
import { clientRouteTable } from '../../src/framework/browser/client-routes.ts';
import { serverRouteTable } from '../../src/framework/server/server-routes.ts';
import { flattenRoutes, type RouteEntry } from '../../src/framework/shared/route-entry.ts';
import { findRoutes, folderOf, pathOf, type RouteGlobs } from '../../src/framework/shared/route-folders.ts';

const view = async () => ({ Component: () => null });

/** Globs as Vite returns them for the given files (`<folder>/<file>` under app/routes/). */
function globsOf(files: string[]): RouteGlobs {
  const globs: RouteGlobs = { views: {}, metas: {}, loaders: {}, actions: {} };
  for (const file of files) {
    const key = `../../app/routes/${file}`;
    if (file.endsWith('view.tsx')) globs.views[key] = view;
    else if (file.endsWith('meta.ts')) globs.metas[key] = { title: () => file };
    else if (file.endsWith('loader.server.ts')) globs.loaders[key] = { loader: () => null };
    else if (file.endsWith('action.server.ts')) globs.actions[key] = { action: () => null };
  }
  return globs;
}

/** The tree as `id path` lines, children indented: easy to read in a failure. */
const outline = (table: RouteEntry[], depth = 0): string[] =>
  table.flatMap((e) => [
    `${'  '.repeat(depth)}${e.id} ${e.index ? '(index)' : e.path}${e.loader ? ' L' : ''}${e.action ? ' A' : ''}`,
    ...outline(e.children ?? [], depth + 1),
  ]);

describe('a folder name is a path', () => {
  it.each([
    ['catalog', { path: 'catalog' }],
    ['catalog.$slug', { path: 'catalog/:slug' }],
    ['docs.$', { path: 'docs/*' }],
    ['$', { path: '*' }],
    ['_index', { index: true }],
    ['a-b.c_d.$id_2', { path: 'a-b/c_d/:id_2' }],
  ])('%s', (name, expected) => {
    expect(pathOf(name)).toEqual(expected);
  });

  it.each([
    ['a splat before the end', '$.more'],
    ['an empty segment', 'a..b'],
    ['a leading dot', '.a'],
    ['a space', 'a b'],
    ['a leading underscore (reserved: _index)', '_private'],
    ['a parameter starting with a digit', '$1st'],
    ['_index inside a name', 'a._index'],
  ])('refuses %s', (_why, name) => {
    expect(() => pathOf(name)).toThrow(/is not a segment/);
  });
});

describe('where a file sits', () => {
  // A table of cases, alike in shape to other functions' tables on purpose (`duplicates` pairs them).
  it.each([
    ['../../app/routes/view.tsx', ''],
    ['../../app/routes/catalog/view.tsx', 'catalog'],
    ['../../app/routes/account/orders.$id/loader.server.ts', 'account/orders.$id'],
  ])('%s is in folder "%s"', (key, folder) => {
    expect(folderOf(key)).toBe(folder);
  });
});

describe('the route tree', () => {
  it('nests by directory, spells paths by name, and flags loaders and actions by file', () => {
    const { table, views, handlers } = findRoutes(
      globsOf([
        'view.tsx',
        'loader.server.ts',
        '_index/view.tsx',
        'account/view.tsx',
        'account/_index/view.tsx',
        'account/orders.$id/view.tsx',
        'account/orders.$id/action.server.ts',
        'catalog.$slug/view.tsx',
        'catalog.$slug/meta.ts',
      ]),
    );
    expect(outline(table)).toEqual([
      'root / L',
      '  _index (index)',
      '  account account',
      '    account/_index (index)',
      '    account/orders.$id orders/:id A',
      '  catalog.$slug catalog/:slug',
    ]);
    expect(Object.keys(views).sort()).toEqual(
      flattenRoutes(table)
        .map((e) => e.view)
        .sort(),
    );
    expect(flattenRoutes(table).find((e) => e.id === 'account/orders.$id')?.view).toBe(
      'routes/account/orders.$id/view.tsx',
    );
    expect([...handlers.keys()]).toEqual(['root', 'account/orders.$id']);
  });

  it.each([
    ['no root layout', ['catalog/view.tsx'], /the root layout, is missing/],
    ['a loader without a view', ['view.tsx', 'catalog/loader.server.ts'], /its folder has no view.tsx/],
    ['a meta module without a view', ['view.tsx', 'catalog/meta.ts'], /its folder has no view.tsx/],
    ['a route inside a folder that is none', ['view.tsx', 'parts/card/view.tsx'], /sits in "parts", which has no/],
    ['children under an index', ['view.tsx', '_index/view.tsx', '_index/more/view.tsx'], /an index has no children/],
    ['a bad folder name', ['view.tsx', 'a b/view.tsx'], /is not a segment/],
  ])('refuses %s', (_why, files, message) => {
    expect(() => findRoutes(globsOf(files))).toThrow(message);
  });

  // Generated trees: every folder is one route, its parent the folder it sits in, whatever the shape.
  it('places every folder of 200 generated trees under the folder it sits in', () => {
    let seed = 41;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const names = ['a', 'b.$id', '$', '_index', 'c-d', 'e.f'];
    for (let round = 0; round < 200; round++) {
      const folders = new Set(['']);
      for (let i = 0; i < 12; i++) {
        const parent = [...folders][random(folders.size)] ?? '';
        if (parent.endsWith('_index')) continue;
        folders.add(`${parent ? `${parent}/` : ''}${names[random(names.length)]}`);
      }
      const { table } = findRoutes(globsOf([...folders].map((f) => (f ? `${f}/view.tsx` : 'view.tsx'))));
      const seen = new Map<string, string>();
      const walk = (entries: RouteEntry[], parent: string | undefined) => {
        for (const e of entries) {
          seen.set(e.folder, parent ?? '-');
          walk(e.children ?? [], e.folder);
        }
      };
      walk(table, undefined);
      expect([...seen.keys()].sort()).toEqual([...folders].sort());
      for (const [folder, parent] of seen) {
        const expected = folder === '' ? '-' : folder.includes('/') ? folder.slice(0, folder.lastIndexOf('/')) : '';
        expect(parent, folder).toBe(expected);
      }
    }
  });
});

describe("the example's folders", () => {
  // The table route-table.ts declared before routes were folders, by the new ids.
  it('make the routes the declared table made, the same on both sides', () => {
    expect(outline(serverRouteTable)).toEqual([
      'root / L',
      '  $ * L',
      '  _index (index)',
      '  catalog catalog L',
      '  catalog.$slug catalog/:slug L',
      '  diagnostics.$failure diagnostics/:failure L',
      '  preferences preferences L A',
    ]);
    expect(outline(clientRouteTable)).toEqual(outline(serverRouteTable));
    const meta = new Map(flattenRoutes(serverRouteTable).map((e) => [e.id, e.meta]));
    expect(meta.get('root')?.cookies).toEqual(['prefs']);
    expect(meta.get('preferences')?.cookies).toEqual(['prefs']);
    expect(meta.get('diagnostics.$failure')?.diagnostics).toBe(true);
  });
});
