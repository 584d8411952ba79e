// The memory and CPU the container allows, so defaults (the relay's memory budget, the web's in-flight limit) fit.
import { readFileSync } from 'node:fs';
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

const readText = (path: string) => {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
};

/**
 * The CPUs the process may use (its cgroup's CFS quota ÷ period: `--cpus 1`, a pod's `limits.cpu: "1"`), or undefined
 * without a quota. cgroup v2 (`cpu.max`) or v1 (`cpu.cfs_quota_us`); Node's availableParallelism() ignores both.
 */
export function containerCpuLimit(read: (path: string) => string | undefined = readText): number | undefined {
  const v2 = read('/sys/fs/cgroup/cpu.max')?.split(' ');
  const [quota, period] = v2
    ? [Number(v2[0]), Number(v2[1])]
    : [Number(read('/sys/fs/cgroup/cpu/cpu.cfs_quota_us')), Number(read('/sys/fs/cgroup/cpu/cpu.cfs_period_us'))];
  return quota > 0 && period > 0 ? quota / period : undefined;
}
