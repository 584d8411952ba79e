// The front door over real loopback servers: lanes ahead of Fastify in order, sealed once listening; the connection
// limits enforced on the server itself; /metrics where METRICS_PORT says.
import { once } from 'node:events';
import type { RequestListener } from 'node:http';
import { connect, type Socket } from 'node:net';
import { timerLateness } from '@app/test-kit';
import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { type ConnectionLimits, createFrontDoor, type FrontDoor, readEnv, readServerConfig } from '../src/index.ts';

const config = readServerConfig(readEnv({ LOG_LEVEL: 'silent' }), 0);
const limits: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 100,
};
let door: FrontDoor | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await door?.app.close();
  door = undefined;
});

async function open(
  options: {
    connections?: Partial<ConnectionLimits>;
    metricsPort?: number;
    wrapFastify?: (l: RequestListener) => RequestListener;
  } = {},
) {
  door = await createFrontDoor('test', config, {
    connections: { ...limits, ...options.connections },
    metricsPort: options.metricsPort,
    ...(options.wrapFastify ? { wrapFastify: options.wrapFastify } : {}),
  });
  door.app.get('/fastify', async () => 'fastify');
  return door;
}
const listen = async (d: FrontDoor) => d.app.listen({ port: 0, host: '127.0.0.1' });

/** A raw connection that has sent `text`; resolves with what the server wrote and when it closed the connection. */
async function rawConnection(url: string, text: string) {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  sockets.push(socket);
  await once(socket, 'connect');
  const started = performance.now();
  let received = '';
  socket.on('data', (chunk) => {
    received += chunk.toString();
  });
  socket.write(text);
  const closed = new Promise<{ received: string; afterMs: number }>((resolve) =>
    socket.once('close', () => resolve({ received, afterMs: performance.now() - started })),
  );
  return { socket, closed };
}

describe('createFrontDoor: lanes', () => {
  it('runs the lanes in order ahead of Fastify: the first to answer ends it, the rest reach Fastify', async () => {
    const d = await open();
    const seen: string[] = [];
    d.addLane('mark', (req, res) => {
      seen.push(`mark ${req.url}`);
      res.setHeader('x-lane', 'mark');
      return false;
    });
    d.addLane('hot', (req, res) => {
      if (req.url !== '/hot') return false;
      seen.push('hot');
      res.end('hot');
      return true;
    });
    d.addLane('never', (req) => {
      seen.push(`never ${req.url}`);
      return false;
    });
    const base = await listen(d);
    expect(d.lanes()).toEqual(['mark', 'hot', 'never']);

    const hot = await fetch(`${base}/hot`);
    expect([await hot.text(), hot.headers.get('x-lane')]).toEqual(['hot', 'mark']);
    // Fastify never saw it: its onRequest hook sets X-Request-Id.
    expect(hot.headers.get('x-request-id')).toBeNull();
    const routed = await fetch(`${base}/fastify`);
    expect([await routed.text(), routed.headers.get('x-lane')]).toEqual(['fastify', 'mark']);
    expect(routed.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen).toEqual(['mark /hot', 'hot', 'mark /fastify', 'never /fastify']);
  });

  it('takes no lane once the server listens, and logs the lanes it runs', async () => {
    const lines: Array<{ msg?: string; lanes?: string[] }> = [];
    door = await createFrontDoor('test', readServerConfig(readEnv({ LOG_LEVEL: 'info' }), 0), {
      connections: limits,
      metricsPort: undefined,
      logStream: { write: (line: string) => lines.push(JSON.parse(line)) },
    });
    const d = door;
    d.addLane('early', () => false);
    await listen(d);
    expect(() => d.addLane('late', () => false)).toThrow('lane late: lanes are added before the server listens');
    expect(d.lanes()).toEqual(['early']);
    expect(lines.find((line) => line.msg === 'front door: lanes ahead of Fastify')?.lanes).toEqual(['early']);
  });

  it('puts wrapFastify behind the lanes and in front of Fastify', async () => {
    const d = await open({
      wrapFastify: (fastify) => (req, res) => {
        if (req.url === '/wrapped') res.end('wrapper');
        else fastify(req, res);
      },
    });
    d.addLane('hot', (req, res) => {
      if (req.url !== '/wrapped' || req.headers['x-hot'] !== '1') return false;
      res.end('lane');
      return true;
    });
    const base = await listen(d);
    expect(await (await fetch(`${base}/wrapped`, { headers: { 'x-hot': '1' } })).text()).toBe('lane');
    expect(await (await fetch(`${base}/wrapped`)).text()).toBe('wrapper');
    expect(await (await fetch(`${base}/fastify`)).text()).toBe('fastify');
  });
});

describe('createFrontDoor: connection limits', () => {
  it('sets the limits on the server Fastify is given', async () => {
    const d = await open({
      connections: { headersTimeoutMs: 3_000, requestTimeoutMs: 4_000, keepAliveTimeoutMs: 2_000 },
    });
    await listen(d);
    const { headersTimeout, requestTimeout, keepAliveTimeout, maxConnections } = d.app.server;
    expect({ headersTimeout, requestTimeout, keepAliveTimeout, maxConnections }).toEqual({
      headersTimeout: 3_000,
      requestTimeout: 4_000,
      keepAliveTimeout: 2_000,
      maxConnections: 100,
    });
  });

  it('closes a client that has not finished its headers within headersTimeout, checked every second', async () => {
    // Node's default check interval (30 s) would keep this client on for far longer than the 500 ms it is given.
    const d = await open({ connections: { headersTimeoutMs: 500, requestTimeoutMs: 1_000 } });
    const base = await listen(d);
    const { closed } = await rawConnection(base, 'GET /fastify HTTP/1.1\r\nHost: x\r\n');
    const late = timerLateness(1_500); // the timeout and one check: what this run's host delays beyond it counts not
    const { received, afterMs } = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(afterMs).toBeLessThan(2_500 + (await late));
  });

  it('closes connections beyond maxConnections as they are accepted', async () => {
    const d = await open({ connections: { maxConnections: 1 } });
    const base = await listen(d);
    const first = await rawConnection(base, 'GET /fastify HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => first.socket.once('data', resolve));
    const second = await rawConnection(base, 'GET /fastify HTTP/1.1\r\nHost: x\r\n\r\n');
    expect((await second.closed).received).toBe('');
    expect(first.socket.destroyed).toBe(false);
  });
});

describe('createFrontDoor: serveMetrics', () => {
  const registry = new Registry();
  new Counter({ name: 'test_things_total', help: 'things', registers: [registry] }).inc(2);

  it('serves GET /metrics on the main port without METRICS_PORT', async () => {
    const d = await open();
    expect(d.serveMetrics(registry)).toBeUndefined();
    const base = await listen(d);
    const metrics = await fetch(`${base}/metrics`);
    expect([metrics.status, await metrics.text()]).toEqual([200, expect.stringContaining('test_things_total 2')]);
  });

  it('serves /metrics on the admin port with METRICS_PORT, and not on the main port', async () => {
    const d = await open({ metricsPort: 0 });
    const admin = d.serveMetrics(registry);
    const base = await listen(d);
    expect(admin?.port()).toBeGreaterThan(0);
    expect(await (await fetch(`http://127.0.0.1:${admin?.port()}/metrics`)).text()).toContain('test_things_total 2');
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
  });
});
