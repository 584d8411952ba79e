import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'test-kit',
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
  },
});
