// A Vitest reporter that prints the pass/fail/skip count last, where CI logs and scripts can find it.
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends the output with the plain line "N passed, N failed[, N skipped]", so any log (CI's included) shows the count
 * whatever reporter ran before it. A file that failed outside its tests counts as one failure.
 */
export default class CountReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      let failedHere = 0;
      for (const test of module.children.allTests()) {
        const { state } = test.result();
        if (state === 'passed') passed++;
        else if (state === 'failed') failedHere++;
        else skipped++;
      }
      // A file that failed without a failing test (it did not load, or a beforeAll/afterAll hook threw and its
      // tests were skipped) is a failure too, or the count would read green.
      if (failedHere === 0 && module.state() === 'failed') failedHere = 1;
      failed += failedHere;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`);
  }
}
