// The e2e suites that measure time (e2e/alone.ts): one file at a time, after every other project has finished.
import { defineProject } from 'vitest/config';
import { ALONE } from './alone.ts';

export default defineProject({
  test: {
    name: 'e2e-alone',
    include: ALONE,
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
