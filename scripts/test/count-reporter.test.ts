// The count reporter's last line, on a real Vitest run of a fixture that passes, fails, skips and fails in a hook.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./reporter-fixture/', import.meta.url));

it('ends the output with the count, a failed hook counting as a failure', async () => {
  const result = await promisify(execFile)('vitest', ['run', '--config', 'vitest.config.ts'], { cwd: fixture }).catch(
    (error: { stdout: string; code: number }) => error,
  );
  expect('code' in result ? result.code : 0).toBe(1);
  expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('1 passed, 2 failed, 2 skipped');
}, 60_000);
