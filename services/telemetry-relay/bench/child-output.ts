// Keeps a bench's child processes from blocking on full pipes while still showing their errors.
import type { ChildProcess } from 'node:child_process';

/** Drains a bench child's output and passes on the stderr lines that look like errors (not deprecation notes). */
export function passErrors(child: ChildProcess): ChildProcess {
  child.stdout?.resume();
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    if (/error|Error/.test(text) && !/FSTDEP|ExperimentalWarning/.test(text)) process.stderr.write(text);
  });
  return child;
}
