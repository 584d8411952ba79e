// Helpers for the container suites (e2e/containers): build the images from their Dockerfiles once per run, run them
// hardened as in production, and run the capture upstream in a container of our base image.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { GenericContainer, type StartedNetwork, type StartedTestContainer, Wait } from 'testcontainers';

const run = promisify(execFile);
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export type ImageName = 'web' | 'telemetry-relay' | 'telemetry-viewer' | 'prometheus';
/** Where each image is built from: the services are targets of the root Dockerfile. */
const builds: Record<ImageName, string[]> = {
  web: ['-f', 'Dockerfile', '--target', 'web'],
  'telemetry-relay': ['-f', 'Dockerfile', '--target', 'telemetry-relay'],
  'telemetry-viewer': ['-f', 'deploy/viewer/Dockerfile'],
  prometheus: ['-f', 'deploy/prometheus/Dockerfile'],
};
/** The tag the suites (and the compose smoke test, via IMAGE_TAG) use; E2E_IMAGE_TAG keeps checkouts apart. */
export const E2E_TAG = process.env.E2E_IMAGE_TAG || 'e2e';
export const imageRef = (name: ImageName) => `ssr-telemetry/${name}:${E2E_TAG}`;
/**
 * The base the Dockerfiles build FROM (their NODE_IMAGE argument; default the official node:24-bookworm-slim): the
 * one scripts/machine/setup.sh builds under its own name, unless NODE_IMAGE names another.
 */
export const BASE_IMAGE = process.env.NODE_IMAGE || 'localhost/ssr-telemetry/node:24-bookworm-slim';

/** Runs the docker CLI; throws with its output on failure. */
export async function docker(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<string> {
  try {
    const { stdout } = await run('docker', args, {
      cwd: options.cwd ?? repoRoot,
      env: options.env ?? process.env,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout.trim();
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`docker ${args.join(' ')} failed:\n${stdout}${stderr}`);
  }
}

/**
 * npm inside a build stage needs the CA bundle of the TLS-intercepting proxy some machines sit behind (CI's does).
 * The Dockerfiles pick up ./ci-ca.pem when it exists (gitignored, build stages only); provide it from the system
 * bundle, which also holds the public roots, so it is harmless where there is no proxy.
 */
function ensureBuildCa(): void {
  const target = `${repoRoot}ci-ca.pem`;
  const system = process.env.BUILD_CA_BUNDLE ?? '/etc/ssl/certs/ca-certificates.crt';
  if (!existsSync(target) && existsSync(system)) copyFileSync(system, target);
}

/**
 * Builds an image from its Dockerfile (legacy builder: works on Docker 20.10 without buildx). Docker's layer cache
 * makes a second build in the same run (another suite file) a cache hit of about a second, so each suite just asks.
 */
export async function buildImage(name: ImageName): Promise<string> {
  ensureBuildCa();
  const started = Date.now();
  await docker(
    [
      ...['build', '-q', ...builds[name], '--build-arg', `NODE_IMAGE=${BASE_IMAGE}`],
      ...['--build-arg', `RELEASE=${E2E_TAG}`, '-t', imageRef(name), '.'],
    ],
    { env: { ...process.env, DOCKER_BUILDKIT: '0' } },
  );
  const size = Number(await docker(['image', 'inspect', '-f', '{{.Size}}', imageRef(name)]));
  process.stdout.write(`image ${imageRef(name)}: ${(size / 1e6).toFixed(0)} MB, built in ${Date.now() - started} ms\n`);
  return imageRef(name);
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
  /** From the host: http://localhost:<mapped port> (the port changes when the container is started again). */
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

/** A minimal, valid error envelope for a DSN, with a unique event id. */
export function errorEnvelope(dsn: string, eventId: string, message = `container e2e ${eventId}`): string {
  const sentAt = new Date().toISOString();
  const event = { event_id: eventId, timestamp: Date.now() / 1000, platform: 'javascript', level: 'error', message };
  return `${JSON.stringify({ event_id: eventId, dsn, sent_at: sentAt })}\n${JSON.stringify({ type: 'event' })}\n${JSON.stringify(event)}\n`;
}

export const newEventId = () => crypto.randomUUID().replaceAll('-', '');

/** Polls until check() returns true (or throws with the last state described). */
export async function eventually(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/**
 * The metric names a service's alerts and dashboard panels use (deploy/k8s/base/monitoring), base names without the
 * histogram/counter suffixes Prometheus adds; infrastructure metrics (cAdvisor, kube-state-metrics) are left out.
 */
export function monitoredMetricNames(job: 'web' | 'telemetry-relay'): string[] {
  const monitoring = `${repoRoot}deploy/k8s/base/monitoring/`;
  const text =
    readFileSync(`${monitoring}prometheusrule.yaml`, 'utf8') +
    readFileSync(`${monitoring}dashboards/ssr-telemetry.json`, 'utf8');
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
