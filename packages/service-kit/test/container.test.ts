// The pod's CPU limit as the service reads it from the cgroup (containerCpuLimit).
import { describe, expect, it } from 'vitest';
import { containerCpuLimit } from '../src/index.ts';

describe('containerCpuLimit', () => {
  const files = (entries: Record<string, string>) => (path: string) => entries[path];
  it.each([
    ['cgroup v2, --cpus 1', { '/sys/fs/cgroup/cpu.max': '100000 100000' }, 1],
    ['cgroup v2, 500m', { '/sys/fs/cgroup/cpu.max': '50000 100000' }, 0.5],
    ['cgroup v2, no quota', { '/sys/fs/cgroup/cpu.max': 'max 100000' }, undefined],
    [
      'cgroup v1, --cpus 2',
      { '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '200000', '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000' },
      2,
    ],
    [
      'cgroup v1, no quota',
      { '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1', '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000' },
      undefined,
    ],
    ['no cgroup files', {}, undefined],
  ])('%s → %s', (_, entries, cpus) => {
    expect(containerCpuLimit(files(entries))).toBe(cpus);
  });
});
