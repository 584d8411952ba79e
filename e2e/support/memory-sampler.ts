// The memory a container uses, sampled from its cgroup on the host (or from docker stats where that is not visible).
import { existsSync, readFileSync } from 'node:fs';
import { docker } from './containers.ts';

const MiB = 1024 * 1024;

export interface MemoryReport {
  samples: number;
  /** Anonymous memory (heap, buffers): what cannot be reclaimed, and what an OOM kill is about. */
  peakRssBytes: number;
  /** Usage minus inactive page cache: the working set the kubelet and the dashboards report. */
  peakWorkingSetBytes: number;
  source: string;
}

export interface MemorySampler {
  stop(): Promise<MemoryReport>;
}

const statValue = (stat: string, key: string) => Number(new RegExp(`^${key} (\\d+)$`, 'm').exec(stat)?.[1] ?? 0);

/**
 * Reads the container's cgroup from the host: v1 (cgroupfs) or v2 (cgroupfs or systemd). Undefined where the
 * host shows no Docker cgroups; the directory itself may come and go as the container stops and starts.
 */
function cgroupReader(id: string): (() => { rss: number; workingSet: number }) | undefined {
  if (existsSync('/sys/fs/cgroup/memory/docker/')) {
    const dir = `/sys/fs/cgroup/memory/docker/${id}/`;
    return () => {
      const stat = readFileSync(`${dir}memory.stat`, 'utf8');
      const usage = Number(readFileSync(`${dir}memory.usage_in_bytes`, 'utf8'));
      return { rss: statValue(stat, 'total_rss'), workingSet: usage - statValue(stat, 'total_inactive_file') };
    };
  }
  const dir = [`/sys/fs/cgroup/docker/${id}/`, `/sys/fs/cgroup/system.slice/docker-${id}.scope/`].find((d) =>
    existsSync(`${d}memory.current`),
  );
  if (!dir) return undefined;
  return () => {
    const stat = readFileSync(`${dir}memory.stat`, 'utf8');
    const usage = Number(readFileSync(`${dir}memory.current`, 'utf8'));
    return { rss: statValue(stat, 'anon'), workingSet: usage - statValue(stat, 'inactive_file') };
  };
}

const DOCKER_UNITS: Record<string, number> = { B: 1, KiB: 1024, MiB: MiB, GiB: 1024 * MiB, kB: 1e3, MB: 1e6, GB: 1e9 };

/**
 * Samples the container's memory every `everyMs` from its cgroup files on the host (cheap, exact); where those are
 * not visible, from `docker stats` (about one sample a second, working set only). Samples that fail while the
 * container restarts are skipped.
 */
export function sampleMemory(containerId: string, everyMs = 250): MemorySampler {
  const report: MemoryReport = { samples: 0, peakRssBytes: 0, peakWorkingSetBytes: 0, source: 'cgroup' };
  const record = (rss: number, workingSet: number) => {
    report.samples++;
    report.peakRssBytes = Math.max(report.peakRssBytes, rss);
    report.peakWorkingSetBytes = Math.max(report.peakWorkingSetBytes, workingSet);
  };
  let stopped = false;
  // Chosen once: while the container restarts its cgroup directory is briefly gone, which is not a reason to
  // change sources.
  const read = cgroupReader(containerId);
  if (!read) report.source = 'docker stats';
  const loop = (async () => {
    while (!stopped) {
      if (read) {
        try {
          const { rss, workingSet } = read();
          record(rss, workingSet);
        } catch {
          // the container is between two runs (restart) or gone
        }
      } else {
        const usage = await docker(['stats', '--no-stream', '--format', '{{.MemUsage}}', containerId]).catch(() => '');
        const match = /^([0-9.]+)([A-Za-z]+)/.exec(usage);
        if (match) {
          const bytes = Number(match[1]) * (DOCKER_UNITS[match[2] as string] ?? 1);
          record(bytes, bytes);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return report;
    },
  };
}
