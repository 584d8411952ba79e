// The end-to-end project: real browsers and containers. Most suites share the run's workers with the unit projects
// (they mostly wait on browsers, containers and timers); the timing-bound ones are the e2e-alone project.
import { defineProject } from 'vitest/config';
import { ALONE } from './alone.ts';

export default defineProject({
  test: {
    name: 'e2e',
    // Every project alike (projects with different counts cannot share a group): Vitest's default is one less.
    maxWorkers: '100%',
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**', ...ALONE],
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
