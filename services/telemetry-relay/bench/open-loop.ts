// Open-loop load that never queues in the client: each request leaves at its scheduled time on a socket of its own
// (raw keep-alive sockets, opened on demand up to a bound), latency counts from the scheduled time,
// and what the generator could not do on time (late sends, no socket free) is reported, not counted as latency.
import { createConnection, type Socket } from 'node:net';

export interface OpenLoopOptions {
  url: string;
  body: Buffer;
  /** Requests per second, and for how long. */
  rate: number;
  seconds: number;
  /** Most sockets open at once; a request due while all are busy is not sent (counted as `unsent`). */
  maxSockets?: number;
  /** A request that leaves more than this after its scheduled time counts as `late` (the generator's fault). */
  lateMs?: number;
  /** Each answered request: its scheduled time (epoch ms), its latency from then and how late it left (ms). */
  onAnswer?(scheduledEpochMs: number, latencyMs: number, sendLagMs: number): void;
}

export interface OpenLoopResult {
  rate: number;
  /** Requests due over the run: sent + unsent. */
  due: number;
  sent: number;
  completed: number;
  errors: number;
  non2xx: number;
  achieved: number;
  p50: number;
  p99: number;
  max: number;
  /** Due while every socket up to the bound was busy: not sent (sending would have queued it in the client). */
  unsent: number;
  /** Sent more than `lateMs` after their scheduled time (the generator's own loop ran late). */
  late: number;
  /** How late the sends left, ms: p99 and worst. */
  sendLagP99: number;
  sendLagMax: number;
  /** Most requests in flight at once, and sockets opened over the run. */
  peakInFlight: number;
  sockets: number;
  /** Whether the generator kept its schedule: nothing unsent, at most 0.1 % late. Otherwise the run is void. */
  kept: boolean;
}

const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/** Bytes of one HTTP/1.1 answer so far: the whole answer's length once its head has arrived (Content-Length). */
function answerLength(buffer: Buffer): number | undefined {
  const head = buffer.indexOf('\r\n\r\n');
  if (head < 0) return undefined;
  const length = /\r\ncontent-length: *(\d+)/i.exec(buffer.toString('latin1', 0, head));
  return head + 4 + Number(length?.[1] ?? 0);
}

export async function openLoop(o: OpenLoopOptions): Promise<OpenLoopResult> {
  const target = new URL(o.url);
  const maxSockets = o.maxSockets ?? 1024;
  const lateMs = o.lateMs ?? 5;
  // The request's bytes are built once: a send is one write on a free socket, an answer one status check.
  const wire = Buffer.concat([
    Buffer.from(
      `POST ${target.pathname}${target.search} HTTP/1.1\r\nhost: ${target.host}\r\ncontent-type: text/plain;charset=UTF-8\r\ncontent-length: ${o.body.length}\r\n\r\n`,
      'latin1',
    ),
    o.body,
  ]);
  const latencies: number[] = [];
  const lags: number[] = [];
  const free: Conn[] = [];
  const open = new Set<Conn>();
  let sockets = 0;
  let inFlight = 0;
  let peakInFlight = 0;
  let errors = 0;
  let non2xx = 0;
  let unsent = 0;
  let late = 0;
  let sent = 0;
  let settled!: () => void;
  const allSettled = new Promise<void>((resolve) => {
    settled = resolve;
  });
  const total = Math.round(o.rate * o.seconds);
  let due = 0;
  const finish = () => {
    inFlight--;
    if (due >= total && inFlight === 0) settled();
  };

  interface Conn {
    socket: Socket;
    /** The scheduled time of the request in flight on it, or undefined while it is free; how late it left. */
    scheduled: number | undefined;
    lag: number;
    chunks: Buffer[];
    received: number;
  }
  const connect = (): Conn => {
    const conn: Conn = {
      socket: createConnection(Number(target.port), target.hostname),
      scheduled: undefined,
      lag: 0,
      chunks: [],
      received: 0,
    };
    conn.socket.setNoDelay(true);
    sockets++;
    open.add(conn);
    conn.socket.on('data', (chunk: Buffer) => {
      if (conn.scheduled === undefined) return;
      conn.chunks.push(chunk);
      conn.received += chunk.length;
      const buffer = conn.chunks.length === 1 ? chunk : Buffer.concat(conn.chunks);
      const length = answerLength(buffer);
      if (length === undefined || conn.received < length) return;
      const scheduled = conn.scheduled;
      const latency = performance.now() - scheduled;
      if (buffer.toString('latin1', 9, 10) !== '2') non2xx++;
      latencies.push(latency);
      o.onAnswer?.(performance.timeOrigin + scheduled, latency, conn.lag);
      conn.scheduled = undefined;
      conn.chunks = [];
      conn.received = 0;
      free.push(conn);
      finish();
    });
    const lost = () => {
      open.delete(conn);
      const i = free.indexOf(conn);
      if (i >= 0) free.splice(i, 1);
      if (conn.scheduled !== undefined) {
        conn.scheduled = undefined;
        errors++;
        finish();
      }
    };
    conn.socket.once('error', () => conn.socket.destroy());
    conn.socket.once('close', lost);
    return conn;
  };

  const send = (scheduled: number) => {
    if (inFlight >= maxSockets) {
      unsent++;
      return;
    }
    const lag = performance.now() - scheduled;
    lags.push(lag);
    if (lag > lateMs) late++;
    sent++;
    inFlight++;
    peakInFlight = Math.max(peakInFlight, inFlight);
    const conn = free.pop() ?? connect();
    conn.scheduled = scheduled;
    conn.lag = lag;
    conn.socket.write(wire);
  };

  const start = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      const upTo = Math.min(total, Math.floor(((now - start) / 1000) * o.rate) + 1);
      while (due < upTo) send(start + (due++ / o.rate) * 1000);
      if (due >= total) resolve();
      else setTimeout(tick, Math.max(0, start + (due / o.rate) * 1000 - performance.now()));
    };
    tick();
  });
  if (inFlight > 0) await allSettled;
  const elapsed = (performance.now() - start) / 1000;
  for (const conn of open) conn.socket.destroy();
  latencies.sort((a, b) => a - b);
  lags.sort((a, b) => a - b);
  return {
    rate: o.rate,
    due,
    sent,
    completed: latencies.length,
    errors,
    non2xx,
    achieved: latencies.length / elapsed,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    max: latencies.at(-1) ?? Number.NaN,
    unsent,
    late,
    sendLagP99: quantile(lags, 0.99),
    sendLagMax: lags.at(-1) ?? Number.NaN,
    peakInFlight,
    sockets,
    kept: unsent === 0 && late <= due / 1000,
  };
}
