// The memory budget's default, sized from the container's memory limit.
import { containerMemoryLimit } from '@app/service-kit';

/** The budget's default share of the container's memory limit; the image gives V8's heap the same share. */
const BUDGET_SHARE_OF_LIMIT = 0.3;
/** Without a container limit (a developer's machine, the benchmark): a fixed budget. */
export const BUDGET_WITHOUT_LIMIT = 256 * 1024 * 1024;

/** The default memory budget: a share of the container's limit, or a fixed size without one. */
export function defaultBudgetBytes(limit = containerMemoryLimit()): number {
  return limit === undefined ? BUDGET_WITHOUT_LIMIT : Math.floor(limit * BUDGET_SHARE_OF_LIMIT);
}
