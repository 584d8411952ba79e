// A run the count reporter's test drives: one pass, one fail, one skip, and a file whose beforeAll throws.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['*.fixture.ts'], reporters: ['../../count-reporter.ts'] },
});
