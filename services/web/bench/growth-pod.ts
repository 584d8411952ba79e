// The web image run as its pod is (deploy/k8s/base/web: the container's CPU and memory limits, the ConfigMap's
// environment, read-only root, no capabilities), for the growth bench's concurrency sweep. Load shedding then sizes
// itself from the cgroup's limits as in the cluster (config.ts). Host networking on loopback, so wrk reaches it as
// the benches reach every server (no docker-proxy in between); pinned to core 0 with the CPU limit on top.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from '@app/test-kit';

const deployDir = fileURLToPath(new URL('../../../deploy/k8s/base/web/', import.meta.url));
const MiB = 1024 * 1024;

export interface PodLimits {
  memoryBytes: number;
  cpus: number;
  /** The ConfigMap's literals: the environment the pod runs with. */
  env: Record<string, string>;
}

/** The web container's limits and ConfigMap; throws when the manifests no longer have them where this looks. */
export function readPodLimits(): PodLimits {
  const deployment = readFileSync(`${deployDir}deployment.yaml`, 'utf8');
  const limits = /limits:\s*\n\s*cpu:\s*"?([\d.]+)(m?)"?\s*\n\s*memory:\s*(\d+)Mi/.exec(deployment);
  const literals = /name: web-config\s*\n\s*literals:\s*\n((?:\s*(?:#.*|- .*)\n)+)/.exec(
    readFileSync(`${deployDir}kustomization.yaml`, 'utf8'),
  );
  if (!limits || !literals) throw new Error(`${deployDir}: the web container's limits or web-config not found`);
  const env = Object.fromEntries(
    [...(literals[1] as string).matchAll(/^\s*- (\w+)=(.*)$/gm)].map((m) => [m[1] as string, m[2] as string]),
  );
  const cpus = Number(limits[1]) / (limits[2] === 'm' ? 1000 : 1);
  return { memoryBytes: Number(limits[3]) * MiB, cpus, env };
}

export interface PodServer {
  url: string;
  metricsUrl: string;
  /** The node process on the host (the container's PID 1), for its CPU time and RSS. */
  pid: number;
  /** Whether the kernel killed it for memory (Docker's record). */
  oomKilled(): boolean;
  stop(): void;
}

const docker = (args: string[]) => execFileSync('docker', args, { encoding: 'utf8' }).trim();

/** Starts the image at the pod's limits; `env` goes on top of the ConfigMap's (the Sentry upstream, say). */
export async function startPod(image: string, limits: PodLimits, env: Record<string, string>): Promise<PodServer> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const name = `webgrowth-${process.pid}-${Date.now()}`;
  const vars = { ...limits.env, HOST: '127.0.0.1', PORT: String(port), METRICS_PORT: String(metricsPort), ...env };
  const id = docker([
    ...['run', '-d', '--name', name, '--network', 'host', '--cpuset-cpus', '0', '--cpus', String(limits.cpus)],
    ...['--memory', String(limits.memoryBytes), '--memory-swap', String(limits.memoryBytes)],
    ...['--read-only', '--tmpfs', '/tmp:rw,size=64m', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges:true'],
    ...Object.entries(vars).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    image,
  ]);
  const stop = () => {
    execFileSync('docker', ['rm', '-f', id], { stdio: 'ignore' });
  };
  const url = `http://127.0.0.1:${port}`;
  for (let waited = 0; ; waited += 200) {
    const ready = await fetch(`http://127.0.0.1:${metricsPort}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (waited > 30_000) {
      const logs = execFileSync('docker', ['logs', '--tail', '20', id], { encoding: 'utf8' });
      stop();
      throw new Error(`${image} did not start:\n${logs}`);
    }
    await sleep(200);
  }
  return {
    url,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    pid: Number(docker(['inspect', '-f', '{{.State.Pid}}', id])),
    oomKilled: () => docker(['inspect', '-f', '{{.State.OOMKilled}}', id]) === 'true',
    stop,
  };
}

export interface Scrape {
  /** web_shed_requests_total by reason. */
  shed: Record<string, number>;
  /** http_request_duration_seconds of 200 answers: cumulative count per bucket bound (s), as Prometheus keeps it. */
  okDurations: Map<number, number>;
}

/** What the sweep reads from the admin port's /metrics, before and after each step. */
export async function scrape(metricsUrl: string): Promise<Scrape> {
  const text = await (await fetch(metricsUrl)).text();
  const shed: Record<string, number> = {};
  for (const m of text.matchAll(/^web_shed_requests_total\{[^}]*reason="(\w+)"[^}]*\} (\d+)/gm)) {
    shed[m[1] as string] = Number(m[2]);
  }
  const okDurations = new Map<number, number>();
  const bucket = /^http_request_duration_seconds_bucket\{([^}]*)\} (\d+)/gm;
  for (const m of text.matchAll(bucket)) {
    const labels = m[1] as string;
    const le = /le="([^"]+)"/.exec(labels)?.[1];
    if (!labels.includes('status_code="200"') || le === undefined) continue;
    const bound = le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le);
    okDurations.set(bound, (okDurations.get(bound) ?? 0) + Number(m[2]));
  }
  return { shed, okDurations };
}

/** The bucket bound (ms) under which 99 % of the 200 answers between two scrapes were served, inside the process. */
export function serverP99Ms(before: Scrape, after: Scrape): number {
  const bounds = [...after.okDurations.keys()].sort((a, b) => a - b);
  const count = (le: number) => (after.okDurations.get(le) ?? 0) - (before.okDurations.get(le) ?? 0);
  const total = count(Number.POSITIVE_INFINITY);
  if (!(total > 0)) return Number.NaN;
  return (bounds.find((le) => count(le) >= 0.99 * total) ?? Number.NaN) * 1000;
}
