// The web service against hostile clients, in process: user input that names prototype properties, a POST from the
// site's host over the other scheme, slow and excess connections on a real loopback server, and load shedding when
// the event loop falls behind. (The same under the pod's limits, with the trace budget: e2e/containers/web-hostile.)

import { connect, type Socket } from 'node:net';
import { slowClients, timerLateness } from '@app/test-kit';
import { beforeAll, describe, expect, it } from 'vitest';
import { pageData, withWeb } from '../with-web.ts';

describe('lookups keyed by user input', () => {
  const web = withWeb();

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])(
    'GET /catalog/%s is a plain 404, not a redirect to a prototype property',
    async (slug) => {
      for (const headers of [{}, pageData()]) {
        const res = await web.app.inject({ url: `/catalog/${slug}`, headers });
        expect(res.statusCode).toBe(404);
        expect(res.headers.location).toBeUndefined();
      }
    },
  );

  it('still redirects an address that moved', async () => {
    const res = await web.app.inject({ url: '/catalog/old-amber-lamp' });
    expect([res.statusCode, res.headers.location]).toEqual([301, '/catalog/amber-lamp']);
  });
});

describe('the Origin of an action behind the edge (TRUSTED_PROXY_HOPS=1)', () => {
  const web = withWeb({ TRUSTED_PROXY_HOPS: '1' });

  const post = (origin: string, forwardedProto: string) =>
    web.app.inject({
      method: 'POST',
      url: '/preferences',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        host: 'shop.test',
        'x-forwarded-proto': forwardedProto,
        origin,
      },
      payload: 'pageSize=10&theme=light',
    });

  it.each([
    ['https://shop.test', 'https', 303],
    ['http://shop.test', 'https', 403],
    ['https://shop.test', 'http', 403],
    ['http://shop.test', 'http', 303],
  ])('Origin %s on a %s request → %i', async (origin, proto, status) => {
    const res = await post(origin, proto);
    expect(res.statusCode).toBe(status);
    if (status === 403) expect(res.body).toContain(`Origin "${origin}" is not "${proto}://shop.test"`);
  });
});

describe('slow and excess connections on a loopback server', () => {
  const web = withWeb(
    { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000', MAX_CONNECTIONS: '20' },
    { listen: true },
  );
  let port: number;
  beforeAll(() => ({ port } = web));

  it('cuts a client that trickles its headers after HEADERS_TIMEOUT_MS, and one that trickles its body after REQUEST_TIMEOUT_MS', async () => {
    const late = timerLateness(2_000); // the longer timeout: what this run's host delays beyond it counts not
    const [headers, body] = await Promise.all([
      slowClients({
        host: '127.0.0.1',
        port,
        count: 5,
        head: () => 'GET /catalog HTTP/1.1\r\nHost: shop.test\r\nX-Slow: ',
        drip: 'a',
        dripEveryMs: 200,
        giveUpAfterMs: 6_000,
      }),
      slowClients({
        host: '127.0.0.1',
        port,
        count: 5,
        head: () =>
          'POST /preferences HTTP/1.1\r\nHost: shop.test\r\nContent-Type: application/x-www-form-urlencoded\r\n' +
          'Content-Length: 100000\r\n\r\npageSize=',
        drip: '1',
        dripEveryMs: 200,
        giveUpAfterMs: 6_000,
      }),
    ]);
    // Enforced by a check every second: the timeout plus up to a second, plus this run's scheduling delay.
    const slack = 2_500 + (await late);
    expect(headers.neverCut).toBe(0);
    expect(Math.max(...headers.cutAfterMs)).toBeLessThan(1_000 + slack);
    expect(body.neverCut).toBe(0);
    expect(Math.max(...body.cutAfterMs)).toBeLessThan(2_000 + slack);
    expect(Object.keys({ ...headers.answers, ...body.answers }).filter((s) => s.startsWith('5'))).toEqual([]);
  }, 15_000);

  it('closes connections beyond MAX_CONNECTIONS as they are accepted, and serves again once they are gone', async () => {
    const open = (): Promise<{ socket: Socket; closed: Promise<void> }> =>
      new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => resolve({ socket, closed }));
        const closed = new Promise<void>((done) => socket.once('close', () => done()));
        socket.once('error', () => undefined);
        setTimeout(() => reject(new Error('connect timed out')), 2_000);
      });
    const held = await Promise.all(Array.from({ length: 20 }, open));
    const extra = await open();
    const cut = await Promise.race([extra.closed.then(() => true), delay(1_000).then(() => false)]);
    expect(cut, 'the 21st connection closed by the server').toBe(true);
    for (const { socket } of held) socket.destroy();
    await expect.poll(() => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status)).toBe(200);
  });
});

describe('requests in flight (SHED_MAX_IN_FLIGHT=2, METRICS_PORT)', () => {
  const web = withWeb({ SHED_MAX_IN_FLIGHT: '2', METRICS_PORT: '0' }, { listen: true });
  let port: number;
  let admin: string;
  beforeAll(() => {
    port = web.port;
    admin = `http://127.0.0.1:${web.adminPort?.port()}`;
  });

  it('answers a third request 503 at once (before Fastify) while two are in flight, liveness and metrics on the admin port, and serves again after', async () => {
    // Two actions whose bodies never finish: in flight until their connections close.
    const held = await Promise.all(
      [0, 1].map(
        () =>
          new Promise<Socket>((resolve) => {
            const socket = connect(port, '127.0.0.1', () => {
              socket.write(
                'POST /preferences HTTP/1.1\r\nHost: shop.test\r\nContent-Type: application/x-www-form-urlencoded\r\n' +
                  'Content-Length: 1000\r\n\r\npageSize=',
              );
              resolve(socket);
            });
          }),
      ),
    );
    await delay(200);
    const shed = await fetch(`http://127.0.0.1:${port}/catalog`);
    expect([shed.status, shed.headers.get('retry-after')]).toEqual([503, '5']);
    expect(await shed.text()).toContain('overloaded (inFlight)');
    // Refused in the server's request listener: no Fastify request was made for it (it would carry an id).
    expect(shed.headers.get('x-request-id')).toBeNull();
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect((await fetch(`${admin}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
    const metrics = await (await fetch(`${admin}/metrics`)).text();
    expect(metrics).toMatch(/web_shed_requests_total\{reason="inFlight"\} 1/);
    // A refusal decided per request fails readiness too, for a second after the last one.
    const readiness = await fetch(`${admin}/readyz`);
    expect(readiness.status).toBe(503);
    expect(await readiness.json()).toEqual({
      status: 'not ready',
      reasons: ['shedding load (inFlight): requests refused within the last 1 s'],
    });
    for (const socket of held) socket.destroy();
    await expect.poll(async () => (await fetch(`http://127.0.0.1:${port}/catalog`)).status).toBe(200);
    await expect.poll(async () => (await fetch(`${admin}/readyz`)).status, { timeout: 3_000 }).toBe(200);
  });
});

describe('load shedding', () => {
  const web = withWeb({ SHED_EVENT_LOOP_DELAY_MS: '50', SHED_RETRY_AFTER_SECONDS: '3' }, { listen: true });
  let base: string;
  beforeAll(() => {
    base = web.url;
  });

  /** Keeps the event loop busy in 300 ms stretches until readiness says it is shedding. */
  async function overload(): Promise<void> {
    await delay(2_000); // pressure counts from two seconds after start
    while ((await web.app.inject({ url: '/readyz' })).statusCode === 200) {
      const until = performance.now() + 300;
      while (performance.now() < until) {
        // busy, as a process with more requests than CPU is
      }
      await delay(5);
    }
  }

  // Over a real connection: the refusal happens in the server's request listener, which inject() does not pass.
  it('answers 503 with Retry-After while the event loop lags, fails readiness, keeps liveness, counts it, and recovers', async () => {
    expect((await fetch(`${base}/catalog`)).status).toBe(200);
    await overload();
    const [page, data, liveness, readiness] = await Promise.all([
      fetch(`${base}/catalog`),
      fetch(`${base}/catalog`, { headers: pageData() }),
      fetch(`${base}/healthz`),
      fetch(`${base}/readyz`),
    ]);
    expect([page.status, page.headers.get('retry-after'), page.headers.get('cache-control')]).toEqual([
      503,
      '3',
      'no-store',
    ]);
    expect(await page.text()).toContain('overloaded (eventLoopDelay)');
    expect(data.status).toBe(503);
    expect(liveness.status).toBe(200);
    expect(readiness.status).toBe(503);
    expect(((await readiness.json()) as { reasons: string[] }).reasons.join()).toMatch(
      /shedding load \(eventLoopDelay\): event-loop delay (\d+ ms|a whole sample interval), \d+ % busy/,
    );
    const metrics = (await web.app.inject({ url: '/metrics' })).body;
    expect(metrics).toMatch(/web_shed_requests_total\{reason="eventLoopDelay"\} [2-9]/);

    await expect.poll(async () => (await fetch(`${base}/readyz`)).status, { timeout: 5_000 }).toBe(200);
    expect((await fetch(`${base}/catalog`)).status).toBe(200);
  });
});

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
