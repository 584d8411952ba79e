// The end-to-end project: real browsers and containers, one file at a time on the shared 2-core machine.
import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'e2e',
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    // Browsers and containers are heavy on a 2-core machine: one file at a time, generous hooks.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
