// The relay's pod as the manifests define it (limits, liveness probe, ConfigMap), and what its container uses of
// those limits: memory sampled from the container's cgroup, and its final state (OOM kill, restarts).
import { existsSync, readFileSync } from 'node:fs';
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import { parse } from 'yaml';
import { docker, repoRoot } from './containers.ts';

const MiB = 1024 * 1024;

export interface RelayPod {
  memoryBytes: number;
  cpus: number;
  /** The livenessProbe's httpGet path and its port resolved to the containerPort. */
  liveness: { path: string; port: number };
  /** The ConfigMap's literals (kustomization configMapGenerator), the environment the pod runs with. */
  env: Record<string, string>;
}

const QUANTITY_UNITS: Record<string, number> = { '': 1, Ki: 1024, Mi: MiB, Gi: 1024 * MiB, k: 1e3, M: 1e6, G: 1e9 };

/** A Kubernetes quantity as a number: 256Mi → bytes, "1" or 500m → cores. */
export function quantity(text: string | number): number {
  const match = /^([0-9.]+)(m|Ki|Mi|Gi|k|M|G)?$/.exec(String(text));
  if (!match) throw new Error(`not a Kubernetes quantity: ${text}`);
  const value = Number(match[1]);
  return match[2] === 'm' ? value / 1000 : value * (QUANTITY_UNITS[match[2] ?? ''] as number);
}

export function readRelayPod(): RelayPod {
  const base = `${repoRoot}deploy/k8s/base/telemetry-relay/`;
  const set = parse(readFileSync(`${base}statefulset.yaml`, 'utf8')) as StatefulSet;
  const container = set.spec?.template.spec?.containers.find((c) => c.name === 'telemetry-relay');
  const limits = container?.resources?.limits;
  const probe = container?.livenessProbe?.httpGet;
  if (!container || !limits?.memory || !limits.cpu || !probe?.path) {
    throw new Error('statefulset.yaml: the telemetry-relay container needs memory/cpu limits and an httpGet liveness');
  }
  const port =
    typeof probe.port === 'number' ? probe.port : container.ports?.find((p) => p.name === probe.port)?.containerPort;
  if (port === undefined) throw new Error(`statefulset.yaml: the liveness port ${probe.port} is not a container port`);
  const kustomization = parse(readFileSync(`${base}kustomization.yaml`, 'utf8')) as {
    configMapGenerator?: { name: string; literals?: string[] }[];
  };
  const literals = kustomization.configMapGenerator?.find((g) => g.name === 'telemetry-relay-config')?.literals ?? [];
  const env = Object.fromEntries(literals.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  return {
    memoryBytes: quantity(limits.memory),
    cpus: quantity(limits.cpu),
    liveness: { path: probe.path, port },
    env,
  };
}

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

/** Reads the container's cgroup from the host (v1 or v2, cgroupfs or systemd); undefined where neither exists. */
function cgroupReader(id: string): (() => { rss: number; workingSet: number }) | undefined {
  const v1 = `/sys/fs/cgroup/memory/docker/${id}/`;
  const v2 = [`/sys/fs/cgroup/docker/${id}/`, `/sys/fs/cgroup/system.slice/docker-${id}.scope/`].find((dir) =>
    existsSync(`${dir}memory.current`),
  );
  if (existsSync(`${v1}memory.stat`)) {
    return () => {
      const stat = readFileSync(`${v1}memory.stat`, 'utf8');
      const usage = Number(readFileSync(`${v1}memory.usage_in_bytes`, 'utf8'));
      return { rss: statValue(stat, 'total_rss'), workingSet: usage - statValue(stat, 'total_inactive_file') };
    };
  }
  if (v2) {
    return () => {
      const stat = readFileSync(`${v2}memory.stat`, 'utf8');
      const usage = Number(readFileSync(`${v2}memory.current`, 'utf8'));
      return { rss: statValue(stat, 'anon'), workingSet: usage - statValue(stat, 'inactive_file') };
    };
  }
  return undefined;
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

export interface ContainerState {
  running: boolean;
  oomKilled: boolean;
  exitCode: number;
  restartCount: number;
}

export async function containerState(id: string): Promise<ContainerState> {
  const [running, oomKilled, exitCode, restartCount] = (
    await docker(['inspect', '-f', '{{.State.Running}} {{.State.OOMKilled}} {{.State.ExitCode}} {{.RestartCount}}', id])
  ).split(' ');
  return {
    running: running === 'true',
    oomKilled: oomKilled === 'true',
    exitCode: Number(exitCode),
    restartCount: Number(restartCount),
  };
}
