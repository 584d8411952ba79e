import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'telemetry-rules',
    // Every project alike (projects with different counts cannot share a group): Vitest's default is one less.
    maxWorkers: '100%',
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
  },
});
