// What a test leaves behind, cleaned up after it: temp directories, and servers or clients it opened.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const tempDirs: string[] = [];

/** A fresh directory under the OS temp dir, removed by `removeTempDirs()` (call it in afterAll). */
export function tempDir(prefix = 'test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

const opened: Array<{ close(): unknown }> = [];

/** Closed after the test whether it passed or not, by `closeOpened()` (call it in afterEach); closing twice is fine. */
export function closeAfterTest<T extends { close(): unknown }>(thing: T): T {
  opened.push(thing);
  return thing;
}

export async function closeOpened(): Promise<void> {
  for (const thing of opened.splice(0).reverse()) await thing.close();
}
