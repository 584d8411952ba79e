// A service's pod as the manifests define it (limits, liveness probe, ConfigMap), and its image run the same way in a
// container: at those limits, restarted when it dies as the kubelet would, reached at its own address. The relay's
// and the web's hostile suites both run their service this way (relay-pod.ts adds the relay's spool volume).
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { Container } from 'kubernetes-types/core/v1.js';
import type { StartedNetwork, StartedTestContainer } from 'testcontainers';
import { Wait } from 'testcontainers';
import { parse } from 'yaml';
import { docker, HardenedContainer, repoRoot } from './containers.ts';

const MiB = 1024 * 1024;

export interface Pod {
  memoryBytes: number;
  cpus: number;
  /** The livenessProbe's httpGet path and its port resolved to the containerPort. */
  liveness: { path: string; port: number };
  /** The readinessProbe's path, when it has one. */
  readinessPath: string | undefined;
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

export interface PodSource {
  /** The folder under deploy/k8s/base, e.g. web. */
  dir: string;
  /** The workload's file there (a Deployment or a StatefulSet: both hold a pod template). */
  workload: string;
  container: string;
  configMap: string;
}

export function readPod(source: PodSource): Pod {
  const base = `${repoRoot}deploy/k8s/base/${source.dir}/`;
  const workload = parse(readFileSync(`${base}${source.workload}`, 'utf8')) as {
    spec?: { template: { spec?: { containers: Container[] } } };
  };
  const container = workload.spec?.template.spec?.containers.find((c) => c.name === source.container);
  const limits = container?.resources?.limits;
  const probe = container?.livenessProbe?.httpGet;
  if (!container || !limits?.memory || !limits.cpu || !probe?.path) {
    throw new Error(
      `${source.workload}: the ${source.container} container needs memory/cpu limits and an httpGet liveness`,
    );
  }
  const port =
    typeof probe.port === 'number' ? probe.port : container.ports?.find((p) => p.name === probe.port)?.containerPort;
  if (port === undefined)
    throw new Error(`${source.workload}: the liveness port ${probe.port} is not a container port`);
  const kustomization = parse(readFileSync(`${base}kustomization.yaml`, 'utf8')) as {
    configMapGenerator?: { name: string; literals?: string[] }[];
  };
  const literals = kustomization.configMapGenerator?.find((g) => g.name === source.configMap)?.literals ?? [];
  const env = Object.fromEntries(literals.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  return {
    memoryBytes: quantity(limits.memory),
    cpus: quantity(limits.cpu),
    liveness: { path: probe.path, port },
    readinessPath: container.readinessProbe?.httpGet?.path,
    env,
  };
}

export interface ContainerState {
  running: boolean;
  /** Exited for good: stopped, or its restart policy gave up (not between two restarts). */
  exited: boolean;
  /** Whether the last exit was an OOM kill (Docker keeps this after a restart). */
  oomKilled: boolean;
  exitCode: number;
  /** Restarts by the restart policy since the container was last started by hand. */
  restartCount: number;
}

export async function containerState(id: string): Promise<ContainerState> {
  const format = '{{.State.Status}} {{.State.OOMKilled}} {{.State.ExitCode}} {{.RestartCount}}';
  const [status, oomKilled, exitCode, restartCount] = (await docker(['inspect', '-f', format, id])).split(' ');
  return {
    running: status === 'running',
    exited: status === 'exited' || status === 'dead',
    oomKilled: oomKilled === 'true',
    exitCode: Number(exitCode),
    restartCount: Number(restartCount),
  };
}

export interface PodContainer {
  container(): StartedTestContainer;
  /**
   * host:port of a container port: the container's own address, as the kubelet and the ingress reach a pod (no
   * userland docker-proxy copying every byte in between), or the mapped port where that address is not routable.
   */
  address(port: number): { host: string; port: number };
  /** http://host:port<path> of a container port. */
  url(port: number, path: string): string;
  livenessUrl(): string;
  state(): Promise<ContainerState>;
  /** A container that died, was restarted by its policy or does not answer liveness is replaced. */
  ensureAlive(): Promise<void>;
  /** docker restart: SIGTERM, then the same container starts again. */
  restart(timeoutMs: number): Promise<string | undefined>;
  stop(): Promise<void>;
}

export interface PodContainerOptions {
  /** Names the service in the suite's output. */
  name: string;
  image: string;
  network: StartedNetwork;
  pod: Pod;
  /** On top of the ConfigMap's environment. */
  env: Record<string, string>;
  /** The main container port (others: the liveness port). */
  port: number;
  /** Mounts made for each container started (a fresh volume, say), and undone when it is stopped. */
  mounts?: { create(): Promise<{ source: string; target: string }[]>; remove(): Promise<void> };
}

export async function startPodContainer(options: PodContainerOptions): Promise<PodContainer> {
  const { image, network, pod, port } = options;
  const start = async (): Promise<StartedTestContainer> => {
    const mounts = (await options.mounts?.create()) ?? [];
    const builder = new HardenedContainer(image)
      .withNetwork(network)
      .withResourcesQuota({ memory: pod.memoryBytes / 1024 ** 3, cpu: pod.cpus })
      .withEnvironment({ ...pod.env, ...options.env })
      .withBindMounts(mounts.map((m) => ({ ...m, mode: 'rw' as const })))
      .withExposedPorts(...new Set([port, pod.liveness.port]))
      .withWaitStrategy(Wait.forHttp(pod.liveness.path, pod.liveness.port).forStatusCode(200))
      .withStartupTimeout(30_000);
    // No swap, as in a pod; and like the kubelet, Docker restarts a container that dies (a crash loop shows as
    // restarts).
    Object.assign((builder as unknown as { hostConfig: object }).hostConfig, {
      MemorySwap: pod.memoryBytes,
      RestartPolicy: { Name: 'on-failure', MaximumRetryCount: 5 },
    });
    return builder.start();
  };
  const stop = async () => {
    await container.stop({ timeout: 1_000 }).catch(() => undefined);
    await options.mounts?.remove();
  };
  let container = await start();
  const direct = await canConnect(container.getIpAddress(network.getName()), port);
  const reached = direct ? 'at its container address' : 'by mapped ports';
  process.stdout.write(`hostile: ${options.name} ${image}, reached ${reached}\n`);

  const pc: PodContainer = {
    container: () => container,
    address: (p) =>
      direct
        ? { host: container.getIpAddress(network.getName()), port: p }
        : { host: container.getHost(), port: container.getMappedPort(p) },
    url: (p, path) => {
      const { host, port: mapped } = pc.address(p);
      return `http://${host}:${mapped}${path}`;
    },
    livenessUrl: () => pc.url(pod.liveness.port, pod.liveness.path),
    state: () => containerState(container.getId()),
    async ensureAlive() {
      const state = await pc.state();
      const liveness = state.running
        ? await fetch(pc.livenessUrl(), { signal: AbortSignal.timeout(2_000) }).then(
            (response) => response.status,
            () => 'no answer',
          )
        : 'not running';
      if (liveness === 200 && state.restartCount === 0) return;
      process.stdout.write(`hostile: replacing the ${options.name} (${JSON.stringify(state)}, liveness ${liveness})\n`);
      await stop();
      container = await start();
    },
    restart: (timeoutMs) =>
      container.restart({ timeout: timeoutMs }).then(
        () => undefined,
        (error: Error) => error.message,
      ),
    stop,
  };
  return pc;
}

/** True when a TCP connection to host:port opens within `timeoutMs`. */
export function canConnect(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    const done = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}
