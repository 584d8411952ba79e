import { defineConfig } from 'vitest/config';

// A run the count reporter's test drives: one pass, one fail, one skip, and a file whose beforeAll throws.
export default defineConfig({
  test: { include: ['*.fixture.ts'], reporters: ['../../count-reporter.ts'] },
});
