// Keeps the relay's imports running one way: a table of layers, checked against every source file's imports.
import { fileURLToPath } from 'node:url';
import { describeLayers } from '@app/test-kit/layer-suite';

// The relay's layers, lowest first: a module imports its own layer and the ones it lists, never one above or
// beside it. A file in no layer fails the test, so a new folder has to be placed here. The README's "Layers" says
// the same in words. Routes are HTTP adapters: they reach the rest only through the pipeline (pipeline/index.ts).
const LAYERS: ReadonlyArray<{ name: string; holds: readonly string[]; imports: readonly string[] }> = [
  { name: 'core', holds: ['core/'], imports: [] },
  { name: 'envelope', holds: ['envelope/'], imports: ['core'] },
  { name: 'ops', holds: ['ops/'], imports: ['core', 'envelope'] },
  { name: 'pii', holds: ['pii/'], imports: [] },
  { name: 'pipeline', holds: ['pipeline/'], imports: ['core', 'envelope', 'ops', 'pii'] },
  { name: 'spool', holds: ['spool/'], imports: [] },
  { name: 'upstream', holds: ['upstream/'], imports: ['core', 'envelope', 'ops', 'spool'] },
  { name: 'projects', holds: ['projects/'], imports: ['core', 'envelope', 'pipeline'] },
  { name: 'routes', holds: ['routes/'], imports: ['core', 'ops', 'pipeline'] },
  {
    name: 'service',
    holds: ['config.ts', 'app.ts', 'main.ts'],
    imports: ['core', 'ops', 'pipeline', 'upstream', 'projects', 'routes'],
  },
];

describeLayers({
  src: fileURLToPath(new URL('../src/', import.meta.url)),
  layers: LAYERS,
  refuses: [
    ['envelope → pipeline', 'envelope/parse.ts', "import { RelayError } from '../pipeline/errors.ts';"],
    ['upstream → pipeline, type only', 'upstream/forward.ts', "import type { X } from '../pipeline/rate-limit.ts';"],
    [
      'spool → upstream (keeping never sends)',
      'spool/spool.ts',
      "import type { Outage } from '../upstream/outage.ts';",
    ],
    ['spool → ops', 'spool/writer.ts', "import type { RelayMetrics } from '../ops/metrics.ts';"],
    ['spool → envelope (keeping knows no format)', 'spool/lease.ts', "import { x } from '../envelope/sent-at.ts';"],
    ['routes → service', 'routes/tunnel.ts', "import type { Config } from '../config.ts';"],
    ['core → envelope, re-exported', 'core/types.ts', "export { parseDsn } from '../envelope/dsn.ts';"],
    [
      'pipeline → upstream (delivery is passed in)',
      'pipeline/index.ts',
      "import type { D } from '../upstream/delivery.ts';",
    ],
    [
      'routes → projects (only through the pipeline)',
      'routes/tunnel.ts',
      "import type { P } from '../projects/live.ts';",
    ],
    ['pipeline → routes, dynamic', 'pipeline/read-body.ts', "const m = await import('../routes/tunnel.ts');"],
    ['a file in no layer', 'extra/thing.ts', ''],
  ],
  allows: new Map([
    [
      'routes/tunnel.ts',
      "import { readBody } from '../pipeline/index.ts';\nimport { x } from './security-reports.ts';",
    ],
    ['envelope/parse.ts', "import { RelayError } from '../core/errors.ts';\nimport { isIP } from 'node:net';"],
    ['app.ts', "import { createTunnelHandler } from './routes/tunnel.ts';"],
  ]),
});
