// Open-loop load that never queues in the client: each request leaves at its scheduled time on a socket of its own
// (raw keep-alive sockets, opened on demand up to a bound), latency counts from the scheduled time,
// and what the generator could not do on time (late sends, no socket free) is reported, not counted as latency.
// A socket is reused only well inside the server's keep-alive hint, as undici does (docs/benchmarks.md says why).
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
  /** The errors by what ended the socket (its error code, or `closed`) and whether it was `fresh` or `reused`. */
  errorKinds: Record<string, number>;
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
  /** Free sockets closed by the client, not reused, for having been idle too near the server's keep-alive timeout. */
  expired: number;
  /** Whether the generator kept its schedule: nothing unsent, at most 0.1 % late. Otherwise the run is void. */
  kept: boolean;
}

/** The `q` quantile of ascending `sorted` (NaN when empty). */
export const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

// undici's defaults: a socket is reused until the server's `Keep-Alive: timeout=` hint less 2 s (its
// keepAliveTimeoutThreshold), or for 4 s without a hint. Node's server closes 1 s after its hint.
const KEEP_ALIVE_MARGIN_MS = 2_000;
const KEEP_ALIVE_UNHINTED_MS = 4_000;

interface AnswerHead {
  /** The whole answer's length (head and Content-Length). */
  length: number;
  /** The server closes the socket after it (`Connection: close`). */
  close: boolean;
  /** Otherwise how long after this answer the socket may carry another request. */
  reusableMs: number;
}

/** What one HTTP/1.1 answer's head says, once it has arrived: its length and how long its socket stays reusable. */
function answerHead(buffer: Buffer): AnswerHead | undefined {
  const end = buffer.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const head = buffer.toString('latin1', 0, end);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  const hint = /\r\nkeep-alive:[^\r]*\btimeout=(\d+)/i.exec(head);
  return {
    length: end + 4 + Number(length?.[1] ?? 0),
    close: /\r\nconnection: *close/i.test(head),
    reusableMs: hint ? Number(hint[1]) * 1000 - KEEP_ALIVE_MARGIN_MS : KEEP_ALIVE_UNHINTED_MS,
  };
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
  const errorKinds: Record<string, number> = {};
  let expired = 0;
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
    /** Requests sent on it so far; until when (performance.now()) it may carry another; what ended it. */
    uses: number;
    reusableUntil: number;
    failure: string;
  }
  const connect = (): Conn => {
    const conn: Conn = {
      socket: createConnection(Number(target.port), target.hostname),
      scheduled: undefined,
      lag: 0,
      chunks: [],
      received: 0,
      uses: 0,
      reusableUntil: 0,
      failure: 'closed',
    };
    conn.socket.setNoDelay(true);
    sockets++;
    open.add(conn);
    conn.socket.on('data', (chunk: Buffer) => {
      if (conn.scheduled === undefined) return;
      conn.chunks.push(chunk);
      conn.received += chunk.length;
      const buffer = conn.chunks.length === 1 ? chunk : Buffer.concat(conn.chunks);
      const head = answerHead(buffer);
      if (head === undefined || conn.received < head.length) return;
      const scheduled = conn.scheduled;
      const latency = performance.now() - scheduled;
      if (buffer.toString('latin1', 9, 10) !== '2') non2xx++;
      latencies.push(latency);
      o.onAnswer?.(performance.timeOrigin + scheduled, latency, conn.lag);
      conn.scheduled = undefined;
      conn.chunks = [];
      conn.received = 0;
      conn.reusableUntil = performance.now() + head.reusableMs;
      if (!head.close) free.push(conn);
      finish();
    });
    const lost = () => {
      open.delete(conn);
      const i = free.indexOf(conn);
      if (i >= 0) free.splice(i, 1);
      if (conn.scheduled !== undefined) {
        conn.scheduled = undefined;
        errors++;
        const kind = `${conn.failure}/${conn.uses > 1 ? 'reused' : 'fresh'}`;
        errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
        finish();
      }
    };
    conn.socket.once('error', (error: NodeJS.ErrnoException) => {
      conn.failure = error.code ?? 'error';
      conn.socket.destroy();
    });
    conn.socket.once('close', lost);
    return conn;
  };

  /** The most recently freed socket still well inside its keep-alive; the ones past it are closed, not reused. */
  const reusable = (): Conn | undefined => {
    const now = performance.now();
    for (let conn = free.pop(); conn; conn = free.pop()) {
      if (conn.reusableUntil > now) return conn;
      expired++;
      conn.socket.destroy();
    }
    return undefined;
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
    const conn = reusable() ?? connect();
    conn.scheduled = scheduled;
    conn.lag = lag;
    conn.uses++;
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
    errorKinds,
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
    expired,
    kept: unsent === 0 && late <= due / 1000,
  };
}
