// The `repo` project: checks of the repository as a whole (docs' links, file headers, lint, types, the scripts).
import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'repo',
    // Every project alike (projects with different counts cannot share a group): Vitest's default is one less.
    maxWorkers: '100%',
    include: ['scripts/test/**/*.test.ts'],
    root: '..',
  },
});
