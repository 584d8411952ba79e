// The web image run as its pod is (deploy/k8s/base/web: the container's CPU and memory limits, the ConfigMap's
// environment, read-only root, no capabilities), for the growth bench's concurrency sweep. Load shedding then sizes
// itself from the cgroup's limits as in the cluster (config.ts). Host networking on loopback, so wrk reaches it as
// the benches reach every server (no docker-proxy in between); pinned to core 0 with the CPU limit on top.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

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

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
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

/** web_shed_requests_total by reason, from the admin port's /metrics. */
export async function shedCounts(metricsUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const counts: Record<string, number> = {};
  for (const m of text.matchAll(/^web_shed_requests_total\{[^}]*reason="(\w+)"[^}]*\} (\d+)/gm)) {
    counts[m[1] as string] = Number(m[2]);
  }
  return counts;
}
