// A crowd of new keep-alive connections to a server whose requests keep its loop busy: with one listening socket
// libuv accepts one connection per loop turn and the last of the crowd waits seconds for its first answer; with
// acceptOnMoreSockets every connection is served within a few turns (docs/decisions/031-accept-on-more-sockets.md).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { acceptOnMoreSockets } from '../../../src/server/http/acceptors.ts';

const CONNECTIONS = 80;
const PAGE_MS = 2; // a synchronous page: with k connections served, a loop turn lasts k × 2 ms
// The wait is counted in pages the server rendered before a connection's first one, not in ms, so a loaded machine
// cannot fail it: one socket puts up to 80²/2 = 3 200 pages ahead of the last (how many depends on how fast the crowd
// asks again); 16 sockets about 9 turns of ≤ 80 pages.
const PAGES_AHEAD_BOUND = 12 * CONNECTIONS; // a dozen turns: 960, where one socket put ≈ 2 700 ahead here
const DEADLINE_MS = 8_000;

// The crowd runs on its own thread (its own loop): each connection sends its next request on each answer and the
// thread reports, per connection, when its first answer came (ms after the connects; null: none by the deadline).
const CROWD = `
const { connect } = require('node:net');
const { workerData, parentPort } = require('node:worker_threads');
const { port, connections, deadlineMs } = workerData;
const started = performance.now();
const firsts = new Array(connections).fill(null);
const sockets = [];
const finish = () => { for (const s of sockets) s.destroy(); parentPort.postMessage(firsts); };
const timer = setTimeout(finish, deadlineMs);
for (let i = 0; i < connections; i++) {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  let buffered = '';
  const ask = () => socket.write('GET / HTTP/1.1\\r\\nHost: crowd\\r\\n\\r\\n');
  socket.on('connect', ask);
  socket.on('error', () => {});
  socket.on('data', (chunk) => {
    buffered += chunk;
    if (!buffered.endsWith('\\r\\n\\r\\nok')) return;
    buffered = '';
    if (firsts[i] === null) {
      firsts[i] = performance.now() - started;
      if (firsts.every((t) => t !== null)) { clearTimeout(timer); finish(); return; }
    }
    ask();
  });
}
`;

function crowd(port: number, deadlineMs = DEADLINE_MS): Promise<Array<number | null>> {
  const worker = new Worker(CROWD, {
    eval: true,
    workerData: { port, connections: CONNECTIONS, deadlineMs },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (firsts) => {
      void worker.terminate();
      resolve(firsts);
    });
    worker.once('error', reject);
  });
}

let server: Server | undefined;
/** Per connection, how many pages the server had rendered before its first. */
let pagesAhead = new Map<object, number>();
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
});

async function busyServer(sockets: number, maxConnections = 1_024): Promise<number> {
  let rendered = 0;
  pagesAhead = new Map();
  server = createServer((req, res) => {
    if (!pagesAhead.has(req.socket)) pagesAhead.set(req.socket, rendered);
    rendered++;
    const until = performance.now() + PAGE_MS;
    while (performance.now() < until);
    res.end('ok');
  });
  const acceptors = acceptOnMoreSockets(server, {
    sockets,
    maxConnections,
    onError: (err) => {
      throw err;
    },
  });
  server.once('close', () => acceptors.close());
  await new Promise<void>((resolve) => server?.listen({ port: 0, host: '127.0.0.1', reusePort: true }, resolve));
  return (server.address() as AddressInfo).port;
}

const slowest = (firsts: Array<number | null>) => Math.max(...firsts.map((t) => t ?? Number.POSITIVE_INFINITY));

describe('acceptOnMoreSockets', () => {
  it('with 16, every connection of the crowd has its first answer within a few turns', async () => {
    const firsts = await crowd(await busyServer(16));
    const mostAhead = Math.max(...pagesAhead.values());
    console.info(`slowest first answer ${Math.round(slowest(firsts))} ms, after ${mostAhead} pages`);
    expect(firsts.every((t) => t !== null)).toBe(true);
    expect(mostAhead).toBeLessThanOrEqual(PAGES_AHEAD_BOUND);
  });

  it('keeps MAX_CONNECTIONS one bound over all the sockets', async () => {
    const firsts = await crowd(await busyServer(8, 10), 1_500);
    expect(firsts.filter((t) => t !== null)).toHaveLength(10);
  });
});
