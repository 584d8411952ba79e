// Helpers for the container suites (e2e/containers): build the images from their Dockerfiles once per run, run them
// hardened as in production, and run the capture upstream in a container of our base image.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BASE_IMAGE, buildImage as buildTestImage, docker, eventually as pollUntil } from '@app/test-kit';
import { GenericContainer, type StartedNetwork, type StartedTestContainer, Wait } from 'testcontainers';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export type ImageName = 'web' | 'telemetry-relay' | 'telemetry-viewer' | 'prometheus';
/** Where each image is built from: the services are targets of the root Dockerfile. */
const builds: Record<ImageName, { dockerfile: string; target?: string }> = {
  web: { dockerfile: 'Dockerfile', target: 'web' },
  'telemetry-relay': { dockerfile: 'Dockerfile', target: 'telemetry-relay' },
  'telemetry-viewer': { dockerfile: 'deploy/viewer/Dockerfile' },
  prometheus: { dockerfile: 'deploy/prometheus/Dockerfile' },
};
/** The tag the suites (and the compose smoke test, via IMAGE_TAG) use; E2E_IMAGE_TAG keeps checkouts apart. */
export const E2E_TAG = process.env.E2E_IMAGE_TAG || 'e2e';
export const imageRef = (name: ImageName) => `ssr-telemetry/${name}:${E2E_TAG}`;
/** The base image, the docker CLI and the image builder are the test-kit's: the growth benches build with them too. */
export { BASE_IMAGE, docker };

/** Builds one of the images from its Dockerfile in this checkout, tagged for this run (imageRef). */
export async function buildImage(name: ImageName): Promise<string> {
  return buildTestImage({ tag: imageRef(name), ...builds[name], buildArgs: { RELEASE: E2E_TAG } });
}

/** A container run as in production: read-only root filesystem, writable /tmp only, no capabilities. */
export class HardenedContainer extends GenericContainer {
  constructor(image: string) {
    super(image);
    this.hostConfig.ReadonlyRootfs = true;
    this.withTmpFs({ '/tmp': 'rw,size=64m' }).withDroppedCapabilities('ALL').withSecurityOpt('no-new-privileges:true');
  }
}

/** What the capture server's control API reports for one envelope. */
export interface CapturedEnvelopeView {
  projectId: string;
  header: Record<string, unknown>;
  requestHeaders: Record<string, string | string[] | undefined>;
  items: { type: string; header: Record<string, unknown>; json?: unknown; text?: string }[];
}

export interface CaptureContainer {
  container: StartedTestContainer;
  /** Network alias other containers use: http://capture:8000 */
  alias: string;
  /** From the host: http://127.0.0.1:<mapped port> (the port changes when the container is started again). */
  url: string;
  /** Stops the container (the upstream is gone: peers get DNS or connection errors); start() brings it back, empty. */
  stop(): Promise<void>;
  start(): Promise<void>;
  envelopeUrl(projectId?: string): string;
  envelopes(): Promise<CapturedEnvelopeView[]>;
  clear(): Promise<void>;
  /** Event ids of every recorded envelope header. */
  eventIds(): Promise<Set<string>>;
}

/** The local Sentry stand-in (packages/test-kit capture server) in a container of our base image. */
export async function startCapture(network: StartedNetwork, alias = 'capture'): Promise<CaptureContainer> {
  const container = await new GenericContainer(BASE_IMAGE)
    .withNetwork(network)
    .withNetworkAliases(alias)
    .withCopyDirectoriesToContainer([{ source: `${repoRoot}packages/test-kit/src`, target: '/capture/src' }])
    .withCopyFilesToContainer([
      { source: `${repoRoot}packages/test-kit/package.json`, target: '/capture/package.json' },
    ])
    .withWorkingDir('/capture')
    .withUser('node')
    .withCommand(['node', 'src/capture-main.ts'])
    .withEnvironment({ PORT: '8000' })
    .withExposedPorts(8000)
    .withWaitStrategy(Wait.forLogMessage('Server listening'))
    .start();
  const id = container.getId();
  const capture: CaptureContainer = {
    container,
    alias,
    url: `http://${container.getHost()}:${container.getMappedPort(8000)}`,
    envelopeUrl: (projectId = '1') => `http://${alias}:8000/api/${projectId}/envelope/`,
    async envelopes() {
      const response = await fetch(`${capture.url}/__capture/envelopes`);
      return ((await response.json()) as { envelopes: CapturedEnvelopeView[] }).envelopes;
    },
    async clear() {
      await fetch(`${capture.url}/__capture/envelopes`, { method: 'DELETE' });
    },
    async eventIds() {
      return new Set((await capture.envelopes()).map((e) => String(e.header.event_id)));
    },
    async stop() {
      await docker(['stop', '--time', '1', id]);
    },
    async start() {
      await docker(['start', id]);
      const mapped = (await docker(['port', id, '8000/tcp'])).split('\n')[0]?.split(':').pop();
      capture.url = `http://${container.getHost()}:${mapped}`;
      await eventually(
        async () => (await fetch(`${capture.url}/__capture/envelopes`)).ok,
        15_000,
        'the capture server',
      );
    },
  };
  return capture;
}

export async function createVolume(prefix: string): Promise<string> {
  return docker(['volume', 'create', '--label', 'org.testcontainers=true', `${prefix}-${process.pid}-${Date.now()}`]);
}
export async function removeVolume(name: string | undefined): Promise<void> {
  if (name) await docker(['volume', 'rm', '-f', name]).catch(() => undefined);
}

/** test-kit's, for the suites that import them from here: a minimal error envelope, a fresh event id. */
export { errorEnvelope, newEventId } from '@app/test-kit';

/** test-kit's `eventually`, polling every 250 ms: each check asks a container or a process over HTTP. */
export const eventually = (check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> =>
  pollUntil(check, timeoutMs, what, 250);

/**
 * The metric names a service's alerts and dashboard panels use (deploy/k8s/base/monitoring, web-monitoring), base names without the
 * histogram/counter suffixes Prometheus adds; infrastructure metrics (cAdvisor, kube-state-metrics) are left out.
 */
export function monitoredMetricNames(job: 'web' | 'telemetry-relay'): string[] {
  const base = `${repoRoot}deploy/k8s/base/`;
  const text = [
    'monitoring/prometheusrule.yaml',
    'monitoring/dashboards/ssr-telemetry.json',
    'web-monitoring/prometheusrule.yaml',
    'web-monitoring/dashboards/web.json',
  ]
    .map((file) => readFileSync(`${base}${file}`, 'utf8'))
    .join('\n');
  const names = new Set<string>();
  for (const [, name, selector = ''] of text.matchAll(
    /\b([a-z][a-z0-9_]*_(?:total|seconds(?:_bucket|_count|_sum)?|envelopes|bytes))\b(\{[^}]*\})?/g,
  )) {
    if (!name || /^(container|kube|node)_/.test(name)) continue;
    const isRelay =
      name.startsWith('relay_') ||
      selector.includes('job=\\"telemetry-relay\\"') ||
      selector.includes('job="telemetry-relay"');
    const isWeb = selector.includes('job=\\"web\\"') || selector.includes('job="web"');
    if ((job === 'telemetry-relay' && isRelay) || (job === 'web' && isWeb))
      names.add(name.replace(/_(bucket|count|sum)$/, ''));
  }
  return [...names].sort();
}

/** Metric family names in a Prometheus text exposition (from its # TYPE lines). */
export function exposedMetricNames(exposition: string): Set<string> {
  return new Set([...exposition.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1] as string));
}
