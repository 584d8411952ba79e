import { totalmem } from 'node:os';

/**
 * The memory limit the process runs under (the cgroup's, as `process.constrainedMemory()` reports it), or undefined
 * when there is none: outside a container Node reports 0 or a number larger than the machine's RAM.
 */
export function containerMemoryLimit(
  constrained = process.constrainedMemory(),
  machine = totalmem(),
): number | undefined {
  return constrained > 0 && constrained < machine ? constrained : undefined;
}
