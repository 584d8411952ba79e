// The relay's pod (deploy/k8s/base/telemetry-relay) run as a container by pod.ts, with its spool on a fresh volume
// for each container started (the volume outlives a restart, as a PersistentVolume would).
import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';
import type { StartedNetwork } from 'testcontainers';
import { createVolume, removeVolume } from './containers.ts';
import { type Pod, type PodContainer, readPod, startPodContainer } from './pod.ts';

export type { ContainerState } from './pod.ts';
export type RelayPod = Pod;

export function readRelayPod(): RelayPod {
  return readPod({
    dir: 'telemetry-relay',
    workload: 'statefulset.yaml',
    container: 'telemetry-relay',
    configMap: 'telemetry-relay-config',
  });
}

export interface PodRelay extends PodContainer {
  tunnelUrl(): string;
}

export interface PodRelayOptions {
  image: string;
  network: StartedNetwork;
  pod: RelayPod;
  /** On top of the ConfigMap's environment. */
  env: Record<string, string>;
}

export async function startPodRelay(options: PodRelayOptions): Promise<PodRelay> {
  const { pod } = options;
  const port = Number(pod.env.PORT ?? 3001);
  const spool = pod.env.SPOOL_DIR ?? '/var/lib/telemetry-relay/spool';
  let volume = '';
  const relay = await startPodContainer({
    ...options,
    name: 'relay',
    port,
    mounts: {
      async create() {
        volume = await createVolume('relay-hostile-spool');
        return [{ source: volume, target: spool }];
      },
      remove: () => removeVolume(volume),
    },
  });
  // The path the relay serves: from the environment it runs with (the ConfigMap's, then the test's own).
  const env = { ...pod.env, ...options.env };
  return {
    ...relay,
    tunnelUrl: () => relay.url(port, env.TUNNEL_PATH || tunnelPathOf(env.ALLOWED_DSNS ?? '') || ''),
  };
}
