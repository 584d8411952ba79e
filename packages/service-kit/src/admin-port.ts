// The admin port (METRICS_PORT), served from a worker thread so it answers while the main thread is busy, and
// /healthz fails when the main thread's event loop has stalled.
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { type Readiness, readinessReport } from './health.ts';

export interface AdminPortOptions {
  /** METRICS_PORT (0: any free port). */
  port: number;
  host: string;
  registry: Registry;
  readiness: Readiness;
  /** /healthz fails once the main event loop has not turned for this long (default 10 s). */
  maxStallMs?: number;
}

export interface AdminPort {
  /** The port listened on once the app is ready (the one asked for, or the one the system chose for 0). */
  port(): number | undefined;
}

/** How often the main thread marks that its event loop turned. */
const BEAT_EVERY_MS = 250;

// The admin server, run in a worker thread: plain JavaScript evaluated there (a file would have to survive each
// service's bundling). /healthz is answered from the heartbeat alone; /metrics and /readyz are asked of the main
// thread, which owns the registry and the readiness checks.
const WORKER_SOURCE = `
const { createServer } = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const { port, host, beat, maxStallMs } = workerData;
const lastBeat = new BigInt64Array(beat);
const waiting = new Map();
let nextId = 0;
// Only the kubelet and Prometheus come here, without a body: an answer to a request that has one (a 405 for a
// POST, say) closes the connection, lingering LINGER_MS and LINGER_BYTES at most so the client reads it
// (service-kit's linger.ts, which this eval'd source cannot import), instead of reading the body to its end.
const LINGER_MS = 2000;
const LINGER_BYTES = 1024 * 1024;
const hasUnreadBody = (req) =>
  !req.complete && (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0);
function lingerAfterAnswer(socket) {
  socket.destroySoon = () => {
    const from = socket.bytesRead;
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    socket.once('close', () => clearTimeout(timer));
    socket.removeAllListeners('data');
    socket.on('data', () => {
      if (socket.bytesRead - from > LINGER_BYTES) socket.destroy();
    });
    socket.resume();
    socket.end();
  };
}
const send = (res, status, headers, body) => {
  const closing = res.req && hasUnreadBody(res.req);
  if (closing) {
    res.req.resume();
    lingerAfterAnswer(res.req.socket);
  }
  const own = closing ? { 'cache-control': 'no-store', connection: 'close' } : { 'cache-control': 'no-store' };
  res.writeHead(status, { ...own, ...headers }).end(body);
};
const json = (res, status, body) => send(res, status, { 'content-type': 'application/json' }, JSON.stringify(body));
const server = createServer((req, res) => {
  const path = (req.url || '/').split('?', 1)[0];
  if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { error: 'method_not_allowed' });
  if (path === '/healthz') {
    const stalledMs = Date.now() - Number(Atomics.load(lastBeat, 0));
    if (stalledMs <= maxStallMs) return json(res, 200, { status: 'ok' });
    return json(res, 503, { status: 'stalled', detail: 'the event loop has not turned for ' + stalledMs + ' ms' });
  }
  if (path !== '/metrics' && path !== '/readyz') {
    return json(res, 404, { error: 'not_found', detail: 'the admin port serves /metrics, /healthz and /readyz' });
  }
  const id = nextId++;
  waiting.set(id, res);
  res.once('close', () => waiting.delete(id));
  parentPort.postMessage({ id, path });
});
server.keepAliveTimeout = 5000;
server.headersTimeout = 5000;
server.requestTimeout = 10000;
parentPort.on('message', (message) => {
  if (message.type === 'close') {
    server.close();
    server.closeAllConnections();
    return;
  }
  const res = waiting.get(message.id);
  if (res) send(res, message.status, { 'content-type': message.contentType }, message.body);
});
server.on('error', (error) => parentPort.postMessage({ type: 'error', message: error.message }));
server.listen(port, host, () => parentPort.postMessage({ type: 'listening', port: server.address().port }));
`;

/**
 * GET /metrics, /healthz and /readyz on a port of their own (the kubelet and Prometheus reach it, the ingress does
 * not), served from a worker thread. Liveness there means "the main event loop turned within maxStallMs": a process
 * busy refusing a crowd, or waiting for a CPU on a crowded node, is alive; one stuck in a loop is not
 * (docs/decisions/008-load-shedding-and-liveness.md). Listens when `app` is ready, closes with it.
 */
export function serveAdminPort(app: FastifyInstance, options: AdminPortOptions): AdminPort {
  const { registry, readiness, maxStallMs = 10_000 } = options;
  const beat = new SharedArrayBuffer(8);
  const lastBeat = new BigInt64Array(beat);
  const mark = () => {
    const now = Date.now();
    const stalledMs = now - Number(Atomics.load(lastBeat, 0));
    // Said afterwards, by the loop that was stuck: liveness failed meanwhile.
    if (stalledMs > maxStallMs)
      app.log.warn({ stalledMs, maxStallMs }, 'event loop stalled; liveness failed meanwhile');
    Atomics.store(lastBeat, 0, BigInt(now));
  };
  Atomics.store(lastBeat, 0, BigInt(Date.now()));
  const heartbeat = setInterval(mark, BEAT_EVERY_MS).unref();
  let worker: Worker | undefined;
  let listeningOn: number | undefined;

  const answer = async (path: string): Promise<{ status: number; contentType: string; body: string }> => {
    if (path === '/metrics') return { status: 200, contentType: registry.contentType, body: await registry.metrics() };
    const { statusCode, body } = await readinessReport(readiness);
    return { status: statusCode, contentType: 'application/json', body: JSON.stringify(body) };
  };
  const onMessage = (message: { id: number; path: string }) => {
    answer(message.path).then(
      (reply) => worker?.postMessage({ id: message.id, ...reply }),
      (err: Error) => {
        app.log.error({ err, path: message.path }, 'admin port: answer failed');
        const body = JSON.stringify({ error: 'internal', detail: err.message });
        worker?.postMessage({ id: message.id, status: 500, contentType: 'application/json', body });
      },
    );
  };

  app.addHook('onReady', async () => {
    const started = new Worker(WORKER_SOURCE, {
      eval: true,
      name: 'admin-port',
      workerData: { port: options.port, host: options.host, beat, maxStallMs },
    });
    worker = started;
    const [first] = (await once(started, 'message')) as [{ type: string; port?: number; message?: string }];
    if (first.type !== 'listening') throw new Error(`admin port ${options.port}: ${first.message}`);
    listeningOn = first.port;
    started.on('message', onMessage);
    app.log.info({ port: listeningOn, maxStallMs }, 'admin port listening (/metrics, /healthz, /readyz)');
  });
  // Last: liveness keeps answering while the main port drains.
  app.addHook('onClose', async () => {
    clearInterval(heartbeat);
    worker?.postMessage({ type: 'close' });
    await worker?.terminate();
    listeningOn = undefined;
  });
  return { port: () => listeningOn };
}
