// The tunnel under hostile input, in this process over loopback: refusals come early and cheaply, memory is
// charged per client, slow clients are cut off, and the admin port answers while the tunnel port is full.
// The same attacks against the image at the pod's limits: e2e/containers/relay-hostile.test.ts.
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import {
  attachmentItem,
  EVENT_ID,
  envelope,
  eventItem,
  freePort,
  post,
  postWhole,
  timeBlock,
  watchEventLoop,
} from '@app/test-kit';
import { beforeAll, describe, expect, it } from 'vitest';
import { withUpstream } from './with-relay.ts';

const MiB = 1024 * 1024;
// One capture server for the file, its DSN every relay's ALLOWED_DSNS; each test's relay is its own, closed after it.
const upstream = withUpstream();
const { relayWith } = upstream;

/** Starts a POST with a declared length, writes `first`, and resolves with the answer without sending the rest. */
function postPartial(
  url: string,
  first: Buffer,
  declared: number,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown>; complete: () => void }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-length': String(declared), ...headers },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body, headers: res.headers, complete: () => req.destroy() }),
      );
    });
    req.on('error', reject);
    req.write(first);
  });
}

/** The nesting bomb of the issue: item header lines of `[` nested thousands deep, brotli-compressed. */
function nestingBomb(dsnText: string, lines = 300, depth = 60_000): Buffer {
  const header = JSON.stringify({ dsn: dsnText, event_id: EVENT_ID });
  const line = `${'['.repeat(depth)}${']'.repeat(depth)}`;
  return brotliCompressSync(`${header}\n${Array.from({ length: lines }, () => `${line}\n{}`).join('\n')}`);
}

describe('authorized before work', () => {
  it('refuses a DSN that is not allowed as soon as the header line arrives, before the body is sent', async () => {
    const relay = await relayWith();
    const other = upstream.capture.dsn({ projectId: '666', publicKey: 'nope' });
    const header = Buffer.from(`${JSON.stringify({ dsn: other })}\n{"type":"attachment","length":${10 * MiB}}\n`);
    const answer = await postPartial(relay.tunnel, header, header.length + 10 * MiB);
    answer.complete();
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'dsn_not_allowed' });
    expect(answer.headers.connection).toBe('close');
  });

  // The block a relay that decompressed first would have: the bomb (300 lines, 60 000 deep) inflated whole.
  let inflateBlock = 0;
  beforeAll(() => {
    const bomb = nestingBomb(upstream.dsn);
    inflateBlock = Math.min(...[0, 1, 2].map(() => timeBlock(() => brotliDecompressSync(bomb))));
  });

  it.each([
    [
      'a DSN the relay does not allow',
      () => upstream.capture.dsn({ projectId: '666', publicKey: 'nope' }),
      300,
      60_000,
      403,
    ],
    ['the allowed DSN (item header lines over their 8 KiB limit)', () => upstream.dsn, 300, 60_000, 413],
    ['the allowed DSN (all header lines over 256 KiB together)', () => upstream.dsn, 300, 3000, 413],
    ['the allowed DSN (20 lines nested 3000 deep)', () => upstream.dsn, 20, 3000, 400],
  ])(
    'answers a brotli nesting bomb with %s quickly, without blocking the event loop',
    async (_name, dsnOf, lines, depth, status) => {
      const relay = await relayWith();
      const bomb = nestingBomb(dsnOf(), lines, depth);
      expect(bomb.length).toBeLessThan(2000);
      const answers = [];
      for (const _ of [0, 1])
        answers.push(await watchEventLoop(() => postWhole(relay.tunnel, bomb, { 'content-encoding': 'br' })));
      expect(answers.map((a) => a.result)).toEqual([status, status]);
      // The better of two answers against inflating the bomb whole, timed the same way in this process.
      expect(Math.min(...answers.map((a) => a.maxBlockMs))).toBeLessThan(inflateBlock);
      expect(upstream.capture.envelopes.length).toBe(0);
    },
  );
});

describe('one memory budget, shared fairly', () => {
  it('answers 429 + Retry-After to a client over its share and 503 + Retry-After when the budget is spent, and recovers', async () => {
    const relay = await relayWith({
      MAX_ENVELOPE_BYTES: String(4 * MiB),
      MEMORY_BUDGET_BYTES: String(8 * MiB),
      MEMORY_PER_CLIENT_BYTES: String(5 * MiB),
      TRUSTED_PROXY_HOPS: '1',
    });
    const head = Buffer.from(
      `${JSON.stringify({ dsn: upstream.dsn })}\n{"type":"attachment","length":${4 * MiB - 200}}\n`,
    );
    const stall = (client: string, size: number) => {
      const socket = request(relay.tunnel, {
        method: 'POST',
        headers: { 'content-length': String(4 * MiB), 'x-forwarded-for': client },
      });
      socket.on('error', () => {});
      socket.write(Buffer.concat([head, Buffer.alloc(size - head.length)]));
      return socket;
    };
    /** `holder` stalls with 3.5 MiB; then `asker` sends 2 MiB of a body: the answer's status, Retry-After, error. */
    const holdThenAsk = async (holder: string, asker: string) => {
      const held = stall(holder, 3.5 * MiB);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const answer = await postPartial(relay.tunnel, Buffer.concat([head, Buffer.alloc(2 * MiB)]), 4 * MiB, {
        'x-forwarded-for': asker,
      });
      return { held, answer: [answer.status, answer.headers['retry-after'], JSON.parse(answer.body).error] };
    };
    // Client A holds 3.5 MiB, then asks for more than its 5 MiB share.
    const { held: a, answer: second } = await holdThenAsk('203.0.113.1', '203.0.113.1');
    expect(second).toEqual([429, '5', 'client_overloaded']);
    // Client B takes another 3.5 MiB: now client C finds the process budget (8 MiB) short.
    const { held: b, answer: third } = await holdThenAsk('203.0.113.2', '203.0.113.3');
    expect(third).toEqual([503, '5', 'overloaded']);
    a.destroy();
    b.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const metrics = await (await fetch(`${relay.url}/metrics`)).text();
    expect(metrics).toMatch(/^relay_memory_held_bytes 0$/m);
    const small = envelope({ dsn: upstream.dsn, event_id: EVENT_ID }, [
      eventItem(),
      attachmentItem(Buffer.alloc(1000)),
    ]);
    expect((await post(relay.tunnel, small, { 'x-forwarded-for': '203.0.113.1' })).status).toBe(200);
  });
});

describe('slow and greedy connections', () => {
  const open = (port: number) =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket));
      socket.on('error', reject);
    });
  const closedWithin = (socket: Socket, ms: number) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });

  it('closes a connection whose request headers trickle (HEADERS_TIMEOUT_MS)', async () => {
    const relay = await relayWith({ HEADERS_TIMEOUT_MS: '500' });
    const socket = await open(Number(new URL(relay.url).port));
    socket.on('error', () => {});
    socket.write('POST /monitoring HTTP/1.1\r\nHost: x\r\n');
    const dribble = setInterval(() => socket.write('X-A: b\r\n'), 100);
    const closed = await closedWithin(socket, 3_000);
    clearInterval(dribble);
    expect(closed).toBe(true);
  });

  it('takes at most MAX_CONNECTIONS at once, while liveness answers on the admin port', async () => {
    const metricsPort = await freePort();
    const relay = await relayWith({ MAX_CONNECTIONS: '5', METRICS_PORT: String(metricsPort) });
    const port = Number(new URL(relay.url).port);
    const held = await Promise.all(Array.from({ length: 5 }, () => open(port)));
    for (const socket of held) socket.on('error', () => {});
    const extra = await open(port);
    extra.on('error', () => {});
    expect(await closedWithin(extra, 2_000)).toBe(true);
    const health = await fetch(`http://127.0.0.1:${metricsPort}/healthz`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
    const ready = await fetch(`http://127.0.0.1:${metricsPort}/readyz`);
    expect(ready.status).toBe(200);
    for (const socket of held) socket.destroy();
  });
});
