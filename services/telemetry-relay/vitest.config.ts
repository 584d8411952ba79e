import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: {
    alias: {
      // `@vitest-environment happy-dom-on-node` (a docblock names an environment, never a path): test/sdk's browser
      // suites, which run the relay in the same process.
      'vitest-environment-happy-dom-on-node': fileURLToPath(new URL('test/sdk/browser-globals.ts', import.meta.url)),
    },
  },
  test: {
    name: 'telemetry-relay',
    // Every project alike (projects with different counts cannot share a group): Vitest's default is one less.
    maxWorkers: '100%',
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
  },
});
