// The relay's pod as the manifests define it (limits, liveness probe, ConfigMap), and the relay image run the same
// way in a container: at those limits, restarted when it dies as the kubelet would, reached at its own address.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { StartedNetwork, StartedTestContainer } from 'testcontainers';
import { Wait } from 'testcontainers';
import { parse } from 'yaml';
import { createVolume, docker, HardenedContainer, removeVolume, repoRoot } from './containers.ts';

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

export interface PodRelay {
  container(): StartedTestContainer;
  /**
   * host:port of a container port: the container's own address, as the kubelet and the ingress reach a pod (no
   * userland docker-proxy copying every byte in between), or the mapped port where that address is not routable.
   */
  address(port: number): { host: string; port: number };
  tunnelUrl(): string;
  livenessUrl(): string;
  state(): Promise<ContainerState>;
  /** A relay that died, was restarted by its policy or does not answer liveness is replaced (empty spool). */
  ensureAlive(): Promise<void>;
  /** docker restart: SIGTERM, then the same container (and spool volume) starts again. */
  restart(timeoutMs: number): Promise<string | undefined>;
  stop(): Promise<void>;
}

export interface PodRelayOptions {
  image: string;
  network: StartedNetwork;
  pod: RelayPod;
  /** On top of the ConfigMap's environment. */
  env: Record<string, string>;
}

export async function startPodRelay(options: PodRelayOptions): Promise<PodRelay> {
  const { image, network, pod } = options;
  const port = Number(pod.env.PORT ?? 3001);
  const spool = pod.env.SPOOL_DIR ?? '/var/lib/telemetry-relay/spool';
  let volume = '';
  const start = async (): Promise<StartedTestContainer> => {
    volume = await createVolume('relay-hostile-spool');
    const builder = new HardenedContainer(image)
      .withNetwork(network)
      .withResourcesQuota({ memory: pod.memoryBytes / 1024 ** 3, cpu: pod.cpus })
      .withEnvironment({ ...pod.env, ...options.env })
      .withBindMounts([{ source: volume, target: spool, mode: 'rw' }])
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
    await removeVolume(volume);
  };
  let container = await start();
  const direct = await canConnect(container.getIpAddress(network.getName()), port);
  process.stdout.write(`hostile: relay ${image}, reached ${direct ? 'at its container address' : 'by mapped ports'}\n`);

  const relay: PodRelay = {
    container: () => container,
    address: (p) =>
      direct
        ? { host: container.getIpAddress(network.getName()), port: p }
        : { host: container.getHost(), port: container.getMappedPort(p) },
    tunnelUrl: () => url(relay.address(port), pod.env.TUNNEL_PATH ?? '/monitoring'),
    livenessUrl: () => url(relay.address(pod.liveness.port), pod.liveness.path),
    state: () => containerState(container.getId()),
    async ensureAlive() {
      const state = await relay.state();
      const liveness = state.running
        ? await fetch(relay.livenessUrl(), { signal: AbortSignal.timeout(2_000) }).then(
            (response) => response.status,
            () => 'no answer',
          )
        : 'not running';
      if (liveness === 200 && state.restartCount === 0) return;
      process.stdout.write(`hostile: replacing the relay (${JSON.stringify(state)}, liveness ${liveness})\n`);
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
  return relay;
}

const url = ({ host, port }: { host: string; port: number }, path: string) => `http://${host}:${port}${path}`;

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
