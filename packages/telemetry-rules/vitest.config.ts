import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'telemetry-rules',
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
  },
});
