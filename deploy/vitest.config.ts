// Offline checks of everything under deploy/ and the Dockerfiles/compose file: seconds, no cluster, no image build.
import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'deploy',
    // Every project alike (projects with different counts cannot share a group): Vitest's default is one less.
    maxWorkers: '100%',
    include: ['test/**/*.test.ts'],
    // An A/B against another commit's manifests, for restructurings (test/compare-before.test.ts).
    exclude: process.env.DEPLOY_BEFORE ? [] : ['test/compare-before.test.ts'],
    testTimeout: 30_000,
  },
});
