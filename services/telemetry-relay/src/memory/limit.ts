import { totalmem } from 'node:os';

/** The budget's default share of the container's memory limit; the image gives V8's heap the same share. */
export const BUDGET_SHARE_OF_LIMIT = 0.3;
/** Without a container limit (a developer's machine, the benchmark): a fixed budget. */
export const BUDGET_WITHOUT_LIMIT = 256 * 1024 * 1024;

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

/** The default memory budget: a share of the container's limit, or a fixed size without one. */
export function defaultBudgetBytes(limit = containerMemoryLimit()): number {
  return limit === undefined ? BUDGET_WITHOUT_LIMIT : Math.floor(limit * BUDGET_SHARE_OF_LIMIT);
}
