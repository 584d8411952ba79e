import { defineConfig } from 'vitest/config';

// One runner for the whole repository: each workspace is a project with its own vitest.config.ts.
export default defineConfig({
  test: {
    projects: [
      'packages/*/vitest.config.ts',
      'services/*/vitest.config.ts',
      'e2e/vitest.config.ts',
      'e2e/vitest.alone.config.ts',
      'scripts/vitest.config.ts',
      'deploy/vitest.config.ts',
    ],
    reporters: ['default', './scripts/count-reporter.ts'],
  },
});
