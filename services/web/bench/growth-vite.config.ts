// The growth bench's build of the service (bench/growth.ts): the server bundle as deployed, but with a 500-item
// catalog and the list's page-size cap raised to 500, so `/catalog?limit=500` renders 500 items. Written to
// dist/growth (its main.js finds dist/client as dist/server's does); the deployed build is left as it is.
import { readFileSync } from 'node:fs';
import { defineConfig, mergeConfig, type Plugin } from 'vite';
import base from '../vite.config.ts';
import { longerCatalog, raisePageSizeCap } from './growth-lists.ts';

function longerLists(): Plugin {
  return {
    name: 'growth-longer-lists',
    enforce: 'pre',
    load(id) {
      if (id.endsWith('/src/app/catalog/catalog.json')) return longerCatalog(readFileSync(id, 'utf8'));
      if (id.endsWith('/src/app/catalog/catalog.ts')) return raisePageSizeCap(readFileSync(id, 'utf8'));
      return undefined;
    },
  };
}

export default defineConfig((env) =>
  mergeConfig(base(env), { plugins: [longerLists()], build: { outDir: 'dist/growth' } }),
);
