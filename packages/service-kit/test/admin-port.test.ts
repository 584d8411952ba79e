// The admin port: /metrics, /healthz and /readyz beside the main port, and liveness answered from a worker thread
// while the main event loop is blocked.
import { connect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { chunksOf, type ServiceProcess, spawnService, timerLateness, uploadThenRead } from '@app/test-kit';
import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createServiceApp, readEnv, readServerConfig, type ServiceApp, serveAdminPort } from '../src/index.ts';

const fixture = fileURLToPath(new URL('./fixtures/slow-service.ts', import.meta.url));
const config = readServerConfig(readEnv({ LOG_LEVEL: 'silent' }), 0);
let service: ServiceApp | undefined;
afterEach(async () => {
  await service?.app.close();
});

/** A service with its admin port on a free port, listening on its main one too; returns both base URLs. */
async function withAdminPort() {
  service = await createServiceApp('test', config);
  const registry = new Registry();
  new Counter({ name: 'test_things_total', help: 'things', registers: [registry] }).inc(3);
  const admin = serveAdminPort(service.app, { port: 0, host: '127.0.0.1', registry, readiness: service.readiness });
  service.app.get('/page', async () => 'page');
  const main = await service.app.listen({ port: 0, host: '127.0.0.1' });
  return { main, admin: `http://127.0.0.1:${admin.port()}`, readiness: service.readiness };
}

describe('serveAdminPort', () => {
  it('serves /metrics, /healthz and /readyz on its own port, and nothing else', async () => {
    const { admin, main } = await withAdminPort();
    const metrics = await fetch(`${admin}/metrics`);
    expect([metrics.status, metrics.headers.get('content-type')]).toEqual([200, new Registry().contentType]);
    expect(await metrics.text()).toContain('test_things_total 3');
    const health = await fetch(`${admin}/healthz`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
    expect((await fetch(`${admin}/readyz`)).status).toBe(200);
    const page = await fetch(`${admin}/page`);
    expect([page.status, ((await page.json()) as { error?: string }).error]).toEqual([404, 'not_found']);
    expect((await fetch(`${admin}/healthz`, { method: 'POST' })).status).toBe(405);
    expect(await (await fetch(`${main}/page`)).text()).toBe('page');
  });

  it('reports readiness as the main port does, and stays live while draining', async () => {
    const { admin, readiness } = await withAdminPort();
    readiness.checks.push(() => 'shedding load');
    const ready = await fetch(`${admin}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([503, { status: 'not ready', reasons: ['shedding load'] }]);
    readiness.draining = true;
    expect(await (await fetch(`${admin}/readyz`)).json()).toEqual({ status: 'draining' });
    expect((await fetch(`${admin}/healthz`)).status).toBe(200);
  });

  it('closes with the app', async () => {
    const { admin } = await withAdminPort();
    await service?.app.close();
    service = undefined;
    await expect(fetch(`${admin}/healthz`)).rejects.toThrow();
  });
});

describe('the admin port answering a request that carries a body', () => {
  const MiB = 1024 * 1024;
  const head = (line: string, bytes: number) =>
    `${line} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${bytes}\r\n\r\n`;

  it.each([
    ['a 405 for a POST', 'POST /metrics', 405],
    ['a 404 for an unknown path', 'GET /nope', 404],
    ['a 200', 'GET /healthz', 200],
  ])('%s: closes the connection, and the client still uploading reads it', async (_name, line, status) => {
    const { admin } = await withAdminPort();
    const exchange = await uploadThenRead(Number(new URL(admin).port), head(line, MiB), chunksOf(MiB));
    expect(exchange.error).toBeUndefined();
    expect(exchange.read).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(exchange.read).toMatch(/\r\nconnection: close\r\n/i);
  });

  it('reads at most 1 MiB after the answer, then resets the client', async () => {
    const { admin } = await withAdminPort();
    const exchange = await uploadThenRead(
      Number(new URL(admin).port),
      head('POST /metrics', 64 * MiB),
      chunksOf(64 * MiB),
    );
    expect(exchange.error).toMatch(/ECONNRESET|EPIPE/);
    expect(exchange.written).toBeLessThan(32 * MiB);
  });

  it('stops reading a slow upload 2 s after the answer, not at requestTimeout', async () => {
    const { admin } = await withAdminPort();
    // Half-open allowed: the client keeps sending after the answer's FIN, as an uploader would.
    const socket = connect({ port: Number(new URL(admin).port), host: '127.0.0.1', allowHalfOpen: true });
    let read = '';
    socket.on('data', (data: Buffer) => {
      read += data.toString('latin1');
    });
    socket.on('error', () => {});
    const started = performance.now();
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - started)));
    socket.write(head('POST /metrics', 16 * MiB));
    const late = timerLateness(2_000); // the linger: what this run's host delays beyond it counts not
    const dribble = setInterval(() => socket.writable && socket.write('a'.repeat(1024)), 100);
    const afterMs = await Promise.race([closed, delay(6_000).then(() => Number.POSITIVE_INFINITY)]);
    clearInterval(dribble);
    socket.destroy();
    expect(read).toMatch(/^HTTP\/1\.1 405 /);
    expect(afterMs).toBeGreaterThan(1_500);
    expect(afterMs).toBeLessThan(4_000 + (await late));
  });

  it('keeps a bodyless GET alive', async () => {
    const { admin } = await withAdminPort();
    expect((await fetch(`${admin}/healthz`)).headers.get('connection')).toBe('keep-alive');
  });
});

describe('the admin port of a service whose event loop is blocked', () => {
  let spawned: ServiceProcess | undefined;
  afterEach(async () => {
    await spawned?.kill();
  });

  it('answers liveness while the loop is busy, fails it once the loop has not turned for MAX_STALL_MS, then recovers', async () => {
    spawned = await spawnService(fixture, { env: { METRICS_PORT: '0', MAX_STALL_MS: '1500' } });
    const announced = () => spawned?.logs.find((l) => String(l.msg).startsWith('admin port at '));
    await expect.poll(announced).toBeDefined();
    const admin = String(announced()?.msg).slice('admin port at '.length);
    const health = async () => {
      const response = await fetch(`${admin}/healthz`);
      return { status: response.status, body: (await response.json()) as { status: string }, at: performance.now() };
    };
    expect((await health()).status).toBe(200);

    // Blocked for 1 s: liveness answers during the block (before the blocking request does), still 200.
    const blocked = fetch(`${spawned.url}/block?ms=1000`).then(() => performance.now());
    await delay(300);
    const during = await health();
    expect(during.status).toBe(200);
    expect(during.at).toBeLessThan(await blocked);

    // Blocked for 4 s: past 1.5 s without a turn of the loop, liveness fails; after the block it passes again.
    const stuck = fetch(`${spawned.url}/block?ms=4000`);
    await delay(2_500);
    const stalled = await health();
    expect([stalled.status, stalled.body.status]).toEqual([503, 'stalled']);
    await stuck;
    await expect.poll(async () => (await health()).status).toBe(200);
    const said = () => spawned?.logs.find((l) => l.msg === 'event loop stalled; liveness failed meanwhile');
    await expect.poll(said).toMatchObject({ level: 40, maxStallMs: 1500 });
    expect(said()?.stalledMs).toBeGreaterThan(1500);
  }, 20_000);
});
