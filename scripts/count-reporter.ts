import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends the output with the plain line "N passed, N failed[, N skipped]", so any log (CI's included) shows the count
 * whatever reporter ran before it. Files that failed to load count as failed.
 */
export default class CountReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      let cases = 0;
      for (const test of module.children.allTests()) {
        cases++;
        const { state } = test.result();
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (cases === 0 && module.state() === 'failed') failed++;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`);
  }
}
