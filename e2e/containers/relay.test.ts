// The telemetry-relay image as it runs in production (read-only root, non-root, spool on a volume), against a
// capture upstream in another container on the same Docker network: what it accepted is never lost, whether the
// upstream goes away, the container is restarted, or it is stopped with SIGTERM in the middle of a stream.

import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';
import { Network, type StartedNetwork, type StartedTestContainer, Wait } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildImage,
  type CaptureContainer,
  createVolume,
  docker,
  errorEnvelope,
  eventually,
  exposedMetricNames,
  HardenedContainer,
  monitoredMetricNames,
  newEventId,
  removeVolume,
  startCapture,
} from '../support/containers.ts';

const SPOOL = '/var/lib/telemetry-relay/spool';
const DSN = 'http://public@capture:8000/1';

let image: string;
let network: StartedNetwork;
let capture: CaptureContainer;
let volume: string;
const started: StartedTestContainer[] = [];

async function startRelay(): Promise<StartedTestContainer> {
  const relay = await new HardenedContainer(image)
    .withNetwork(network)
    .withNetworkAliases('relay')
    .withEnvironment({
      ALLOWED_DSNS: DSN,
      UPSTREAM_URL: capture.envelopeUrl('1'),
      SPOOL_MODE: 'durable',
      LOG_LEVEL: 'info',
      // Retries back off up to a minute by default; a few seconds keeps the outage tests short.
      RETRY_MAX_MS: '2000',
      METRICS_PORT: '9464',
    })
    .withBindMounts([{ source: volume, target: SPOOL, mode: 'rw' }])
    .withExposedPorts(3001, 9464)
    .withWaitStrategy(Wait.forHttp('/readyz', 3001).forStatusCode(200))
    .withStartupTimeout(30_000)
    .start();
  started.push(relay);
  return relay;
}

// No TUNNEL_PATH: the relay serves the path `tunnel: true` derives from its one allowed DSN.
const tunnelUrl = (relay: StartedTestContainer) =>
  `http://${relay.getHost()}:${relay.getMappedPort(3001)}${tunnelPathOf(DSN)}`;

/** Posts one envelope the way the browser SDK does; returns the status (0 for a connection error). */
async function post(url: string, eventId: string): Promise<number> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: errorEnvelope(DSN, eventId),
      signal: AbortSignal.timeout(15_000),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

async function postMany(url: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = newEventId();
    expect(await post(url, id), `envelope ${i}`).toBe(200);
    ids.push(id);
  }
  return ids;
}

async function expectAllArrive(ids: string[], timeoutMs: number): Promise<void> {
  let missing = ids;
  await eventually(
    async () => {
      const received = await capture.eventIds();
      missing = ids.filter((id) => !received.has(id));
      return missing.length === 0;
    },
    timeoutMs,
    `${ids.length} envelopes upstream (still missing ${missing.length})`,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; missing: ${missing.slice(0, 5).join(', ')}`);
  });
}

beforeAll(async () => {
  image = await buildImage('telemetry-relay');
  network = await new Network().start();
  capture = await startCapture(network);
  volume = await createVolume('relay-spool');
});

afterAll(async () => {
  for (const container of started.reverse()) await container.stop({ timeout: 1_000 }).catch(() => undefined);
  await capture?.container.stop({ timeout: 1_000 });
  await network?.stop();
  await removeVolume(volume);
});

describe('telemetry-relay container', () => {
  let relay: StartedTestContainer;

  it('runs as uid 1000 on a read-only root with only the spool and /tmp writable, and forwards', async () => {
    relay = await startRelay();
    const probe = await relay.exec([
      'node',
      '-e',
      `const fs = require('node:fs');
       const tryWrite = (p) => { try { fs.writeFileSync(p, 'x'); fs.rmSync(p); return 'ok'; } catch (e) { return e.code; } };
       console.log(JSON.stringify({ uid: process.getuid(), root: tryWrite('/app/probe'), spool: tryWrite('${SPOOL}/probe'), tmp: tryWrite('/tmp/probe'),
         workspaces: fs.readdirSync('/app/node_modules/@app'), packages: fs.readdirSync('/app/packages') }));`,
    ]);
    // Only the workspaces the relay runs: no link to test-kit (or any other) left over from npm ci.
    expect(JSON.parse(probe.output.trim())).toEqual({
      uid: 1000,
      root: 'EROFS',
      spool: 'ok',
      tmp: 'ok',
      workspaces: ['service-kit', 'telemetry-relay', 'telemetry-rules'],
      packages: ['service-kit', 'telemetry-rules'],
    });

    const ids = await postMany(tunnelUrl(relay), 3);
    await expectAllArrive(ids, 15_000);
    const [first] = (await capture.envelopes()).filter((e) => e.header.event_id === ids[0]);
    expect(first?.projectId).toBe('1');
    expect(first?.items.map((item) => item.type)).toEqual(['event']);
  });

  it('exposes every metric the alerts and the dashboard use, on the separate metrics port', async () => {
    const response = await fetch(`http://${relay.getHost()}:${relay.getMappedPort(9464)}/metrics`);
    expect(response.status).toBe(200);
    const exposed = exposedMetricNames(await response.text());
    const used = monitoredMetricNames('telemetry-relay');
    expect(used.length).toBeGreaterThan(5);
    expect(used.filter((name) => !exposed.has(name))).toEqual([]);
  });

  it('loses nothing while the upstream is stopped: everything accepted meanwhile arrives once it is back', async () => {
    await capture.stop();
    let ids: string[] = [];
    try {
      ids = await postMany(tunnelUrl(relay), 20);
      // Let deliveries fail and back off for a while (the capture server restarts empty: what it then records was
      // delivered after the outage).
      await new Promise((resolve) => setTimeout(resolve, 3_000));
    } finally {
      await capture.start();
    }
    await expectAllArrive(ids, 45_000);
  });

  it('replays its spool volume after the container restarts while the upstream is down', async () => {
    await capture.stop();
    let ids: string[] = [];
    try {
      ids = await postMany(tunnelUrl(relay), 10);
      // docker restart: SIGTERM, graceful shutdown (upstream still down, so the envelopes stay spooled), then a new
      // process on the same volume; only the volume can still hold them.
      await relay.restart({ timeout: 40_000 });
    } finally {
      await capture.start();
    }
    await expectAllArrive(ids, 45_000);
  });

  it('exits 0 on SIGTERM under a steady stream, and every envelope it answered 200 arrives', async () => {
    const url = tunnelUrl(relay);
    const accepted: string[] = [];
    const outcomes = new Map<number, number>();
    let stopping = false;
    const worker = async () => {
      while (!stopping) {
        const id = newEventId();
        const status = await post(url, id);
        outcomes.set(status, (outcomes.get(status) ?? 0) + 1);
        if (status === 200) accepted.push(id);
        else await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    await eventually(async () => accepted.length >= 50, 30_000, '50 accepted envelopes before SIGTERM');
    await docker(['kill', '--signal', 'SIGTERM', relay.getId()]);
    const exitCode = Number(await docker(['wait', relay.getId()]));
    stopping = true;
    await Promise.all(workers);

    process.stdout.write(`SIGTERM under a stream: answers by status ${JSON.stringify(Object.fromEntries(outcomes))}\n`);
    expect(exitCode).toBe(0);
    expect(accepted.length).toBeGreaterThanOrEqual(50);
    // Whatever was still spooled at exit is replayed by the replacement (a new container on the same volume).
    await startRelay();
    await expectAllArrive(accepted, 90_000);
    // Only clean refusals or connection errors after SIGTERM: never a 5xx for something half-accepted.
    expect([...outcomes.keys()].filter((status) => status >= 500 && status !== 503)).toEqual([]);
  });
});
