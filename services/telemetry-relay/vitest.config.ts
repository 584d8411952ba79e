import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'telemetry-relay',
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
  },
});
