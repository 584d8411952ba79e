// Keeps the web's imports running one way: a table of layers, checked against every source file's imports.
import { fileURLToPath } from 'node:url';
import type { Layer } from '@app/test-kit';
import { describeLayers } from '@app/test-kit/layer-suite';
import { expect, it } from 'vitest';

// The web's layers, lowest first: a module imports its own layer and the ones it lists, never one above or beside
// it. A file in no layer fails the test, so a new folder (or a new file at the top of server/) has to be placed here.
const LAYERS: readonly Layer[] = [
  { name: 'framework/shared', holds: ['framework/shared/'], imports: [] },
  { name: 'app', holds: ['app/'], imports: ['framework/shared'] },
  // These two find app/routes/ by import.meta.glob (the routes are folders, no list names them): above app.
  { name: 'framework/browser', holds: ['framework/browser/'], imports: ['framework/shared', 'app'] },
  { name: 'framework/server', holds: ['framework/server/'], imports: ['framework/shared', 'app'] },
  { name: 'client', holds: ['client/'], imports: ['framework/shared', 'framework/browser', 'app'] },
  { name: 'telemetry', holds: ['server/telemetry/'], imports: [] },
  { name: 'ops', holds: ['server/ops/'], imports: ['telemetry'] },
  { name: 'http', holds: ['server/http/'], imports: ['framework/shared'] },
  { name: 'pages', holds: ['server/pages/'], imports: ['framework/shared', 'http', 'ops'] },
  {
    name: 'process',
    holds: ['server/config.ts', 'server/app.ts', 'server/instrument.ts', 'server/main.ts', 'server/dev.ts'],
    imports: ['framework/shared', 'framework/server', 'app', 'telemetry', 'ops', 'http', 'pages'],
  },
  // Runs the build, never the sources above: it imports none of them (and nothing outside src/, such as scripts/).
  { name: 'launcher', holds: ['main.ts', 'build-if-stale.ts'], imports: [] },
];

describeLayers({
  src: fileURLToPath(new URL('../src/', import.meta.url)),
  layers: LAYERS,
  extensions: ['.ts', '.tsx'],
  also: (sources) => {
    // A glob is no import statement, so the table cannot see it: only the two route finders may use one.
    it('finds route files by glob only in framework/server/ and framework/browser/', () => {
      const globbing = [...sources()]
        .filter(([, source]) => /import\.meta\.glob(<[^>]*>)?\(/.test(source))
        .map(([file]) => file);
      expect(globbing.sort()).toEqual(['framework/browser/client-routes.ts', 'framework/server/server-routes.ts']);
    });
  },
  // Alike in shape to the relay's refusals on purpose (`duplicates` pairs them): each service's own moves.
  refuses: [
    ['pages → process', 'server/pages/query.ts', "import type { Config } from '../config.ts';"],
    [
      'http → pages, type only (the old failures.ts ↔ pages/ loop)',
      'server/http/security-headers.ts',
      "import type { PageReply } from '../pages/page-io.ts';",
    ],
    ['telemetry → ops', 'server/telemetry/trace-budget.ts', "import { createMetrics } from '../ops/metrics.ts';"],
    ['framework → client', 'framework/shared/route-entry.ts', "import { whenIdle } from '../client/idle.ts';"],
    ['app → server, re-exported', 'app/signals.ts', "export { createMetrics } from '../server/ops/metrics.ts';"],
    ['client → server, dynamic', 'client/start.tsx', "const m = await import('../server/pages/query.ts');"],
    ['src → scripts/', 'main.ts', "import '../scripts/make-catalog.ts';"],
    ['a file in no layer', 'server/extra.ts', ''],
  ],
  allows: new Map([
    ['server/app.ts', "import { pagesRoute } from './pages/page-route.ts';\nimport { x } from './config.ts';"],
    ['server/pages/query.ts', "import type { Metrics } from '../ops/metrics.ts';\nimport { y } from './page-io.ts';"],
    ['client/start.tsx', "import { start } from '../framework/browser/client-routes.ts';\nimport { z } from 'react';"],
  ]),
});
