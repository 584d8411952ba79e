// The open-loop generator the backlog bench measures live latency with (bench/open-loop.ts): against real HTTP
// servers on loopback it must not queue requests in the client, and must report what it could not send on time.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timerLateness } from '@app/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { openLoop } from '../../bench/open-loop.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A server answering with `handle`; it closes a socket idle `keepAliveMs` (and advertises it, in whole seconds). */
async function serve(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  keepAliveMs = 60_000,
): Promise<string> {
  const server = createServer({ keepAliveTimeout: keepAliveMs, keepAliveTimeoutBuffer: 0 }, (req, res) => {
    req.resume();
    req.on('end', () => handle(req, res));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/1/envelope/`;
}

const slow = (ms: number) => (_req: IncomingMessage, res: ServerResponse) =>
  setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), ms);
const body = Buffer.from('{}\n{"type":"event"}\n{}\n');

describe('openLoop', () => {
  it('opens a socket per request in flight instead of queueing: latency stays the server time', async () => {
    // 200/s against 300 ms answers needs ≈ 60 in flight; a 32-connection pool (the old fixed-rate.ts) queued the
    // rest and read p99 ≈ 1 s here.
    const url = await serve(slow(300));
    const late = timerLateness(300); // the server's time: what this run's host delays beyond it counts not
    const result = await openLoop({ url, body, rate: 200, seconds: 1 });
    expect(result).toMatchObject({ due: 200, sent: 200, completed: 200, unsent: 0, errors: 0, non2xx: 0 });
    expect(result.peakInFlight).toBeGreaterThanOrEqual(50);
    expect(result.p50).toBeGreaterThanOrEqual(300);
    expect(result.p99).toBeLessThan(550 + (await late));
  });

  it('reports requests due while every socket is busy as unsent, never sends them late', async () => {
    const url = await serve(slow(300));
    const late = timerLateness(300);
    const result = await openLoop({ url, body, rate: 100, seconds: 1, maxSockets: 10 });
    expect(result.peakInFlight).toBe(10);
    expect(result.unsent).toBeGreaterThan(50);
    expect(result.sent + result.unsent).toBe(100);
    expect(result.completed).toBe(result.sent);
    expect(result.kept).toBe(false);
    expect(result.max).toBeLessThan(550 + (await late));
  });

  it('reports sends its own loop made late, and counts their latency from the schedule', async () => {
    const url = await serve(slow(1));
    const answers: Array<[number, number, number]> = [];
    const blocked = setTimeout(() => {
      const until = performance.now() + 150;
      while (performance.now() < until) {} // the generator's loop held, as by a long collection
    }, 300);
    const result = await openLoop({
      url,
      body,
      rate: 100,
      seconds: 1,
      onAnswer: (at, ms, lag) => answers.push([at, ms, lag]),
    });
    clearTimeout(blocked);
    expect(result.late).toBeGreaterThanOrEqual(10);
    expect(result.sendLagMax).toBeGreaterThanOrEqual(100);
    expect(result.kept).toBe(false);
    expect(result.max).toBeGreaterThanOrEqual(result.sendLagMax);
    expect(answers.filter(([, , lag]) => lag > 5)).toHaveLength(result.late);
  });

  it.each([
    ['a refusal (non-2xx)', (_: IncomingMessage, res: ServerResponse) => res.writeHead(429).end('{"error":"x"}'), 1],
    [
      'an answer in two writes',
      (_: IncomingMessage, res: ServerResponse) => {
        res.writeHead(200, { 'content-length': '6' });
        res.write('{"a"');
        setTimeout(() => res.end(':1}'.slice(0, 2)), 20);
      },
      0,
    ],
    [
      'an answer that closes its connection',
      (_: IncomingMessage, res: ServerResponse) => res.writeHead(200, { connection: 'close' }).end('{}'),
      0,
    ],
  ])('counts %s as one answer', async (_name, handle, non2xx) => {
    const url = await serve(handle);
    const result = await openLoop({ url, body, rate: 50, seconds: 0.4 });
    expect(result).toMatchObject({ due: 20, completed: 20, errors: 0, non2xx: non2xx * 20 });
  });

  it('counts a request whose connection is reset as an error, not an answer', async () => {
    const url = await serve((req) => req.socket.destroy());
    const result = await openLoop({ url, body, rate: 50, seconds: 0.2 });
    expect(result).toMatchObject({ due: 10, completed: 0, errors: 10, errorKinds: { 'closed/fresh': 10 } });
  });

  it("reuses a socket well inside the server's keep-alive hint", async () => {
    const url = await serve(slow(1), 5_000);
    const result = await openLoop({ url, body, rate: 20, seconds: 0.5 });
    expect(result).toMatchObject({ due: 10, completed: 10, errors: 0, sockets: 1, expired: 0 });
  });

  it("never sends on a socket near the server's keep-alive timeout: a fresh socket, not an error", async () => {
    // The busy-run errors: the relay closes a socket idle 5 s (+1 s, Node's buffer) while the generator, running
    // late, sends on it before reading the close. Here the server (in this process) closes 1 s after the first
    // answer, and the held loop makes the second send meet that close.
    const url = await serve(slow(1), 1_000);
    const held = setTimeout(() => {
      const until = performance.now() + 300;
      while (performance.now() < until) {}
    }, 900);
    const result = await openLoop({ url, body, rate: 1, seconds: 2 });
    clearTimeout(held);
    expect(result).toMatchObject({ due: 2, completed: 2, errors: 0, sockets: 2, expired: 1 });
  });
});
