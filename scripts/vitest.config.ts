// The `repo` project: checks of the repository as a whole (docs' links, file headers, lint, types, the scripts).
import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'repo',
    include: ['scripts/test/**/*.test.ts'],
    root: '..',
  },
});
