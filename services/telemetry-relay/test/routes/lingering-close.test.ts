// A refusal sent before the body has arrived: the client still sending must read the answer, not a reset, and the
// relay must not read for it for longer than its bounds (packages/service-kit/src/linger.ts, decision 039).
import { once } from 'node:events';
import { connect } from 'node:net';
import { chunksOf, EVENT_ID, envelope, eventItem, eventually, post, uploadThenRead } from '@app/test-kit';
import { describe, expect, it } from 'vitest';
import { type RunningRelay, withUpstream } from '../with-relay.ts';

const MiB = 1024 * 1024;
const upstream = withUpstream();
const { relayWith } = upstream;
/** A DSN the relay does not allow. */
const notAllowed = () => upstream.capture.dsn({ projectId: '666', publicKey: 'nope' });

/** The head of a POST to the tunnel declaring a body of `declared` bytes, for a raw socket. */
function head(relay: RunningRelay, declared: number): string {
  const url = new URL(relay.tunnel);
  return `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-length: ${declared}\r\n\r\n`;
}

const headerLine = (dsn: string) => `${JSON.stringify({ dsn })}\n{"type":"attachment","length":${64 * MiB}}\n`;

const portOf = (relay: RunningRelay) => Number(new URL(relay.url).port);

/** The relay's count of lingers that ended `end`'s way. */
async function lingersEnded(relay: RunningRelay, end: 'client' | 'time' | 'bytes'): Promise<number> {
  const text = await (await fetch(`${relay.url}/metrics`)).text();
  return Number(text.match(new RegExp(`relay_refusal_lingers_total\\{end="${end}"\\} (\\d+)`))?.[1] ?? 0);
}

const openConnections = (relay: RunningRelay) =>
  new Promise<number>((resolve, reject) =>
    relay.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );

describe('a refusal before the body has arrived', () => {
  it('lets a client still uploading read the 403, then closes', async () => {
    const relay = await relayWith();
    const line = headerLine(notAllowed());
    const exchange = await uploadThenRead(
      portOf(relay),
      head(relay, line.length + 16 * MiB) + line,
      chunksOf(16 * MiB),
    );
    expect(exchange.error).toBeUndefined();
    expect(exchange.written).toBe(16 * MiB);
    expect(exchange.read).toMatch(/^HTTP\/1\.1 403 /);
    expect(exchange.read).toMatch(/\r\nconnection: close\r\n/i);
    expect(exchange.read).toContain('"error":"dsn_not_allowed"');
    await eventually(async () => (await lingersEnded(relay, 'client')) === 1, 3000, 'the linger to be counted');
  });

  it('lets a client uploading more than MAX_BODY_BYTES read the 413, then closes', async () => {
    const relay = await relayWith({ MAX_BODY_BYTES: String(4 * MiB) });
    const exchange = await uploadThenRead(portOf(relay), head(relay, 6 * MiB), chunksOf(6 * MiB));
    expect(exchange.error).toBeUndefined();
    expect(exchange.read).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('takes nothing after the refused body as a request: an envelope sent next on the connection is not relayed', async () => {
    const relay = await relayWith();
    const line = headerLine(notAllowed());
    const body = Buffer.concat([Buffer.from(line), Buffer.alloc(MiB, 0x61)]);
    const next = envelope({ dsn: upstream.dsn, event_id: EVENT_ID }, [eventItem()]);
    const before = upstream.capture.envelopes.length;
    const exchange = await uploadThenRead(portOf(relay), head(relay, body.length), [
      body,
      Buffer.from(head(relay, next.length)),
      next,
    ]);
    expect(exchange.read.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(exchange.read).toMatch(/^HTTP\/1\.1 403 /);
    // The same envelope on a connection of its own is relayed: the one above was not read as a request.
    expect((await post(relay.tunnel, next)).status).toBe(200);
    await eventually(() => upstream.capture.envelopes.length >= before + 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(upstream.capture.envelopes.length).toBe(before + 1);
  });

  it('closes a connection that sends nothing more within REFUSED_BODY_LINGER_MS', async () => {
    const relay = await relayWith({ REFUSED_BODY_LINGER_MS: '300' });
    const line = headerLine(notAllowed());
    const socket = connect({ port: portOf(relay), host: '127.0.0.1', allowHalfOpen: true });
    let read = '';
    socket.on('data', (data: Buffer) => {
      read += data.toString('latin1');
    });
    socket.write(head(relay, line.length + 16 * MiB) + line);
    await once(socket, 'end');
    const answered = performance.now();
    expect(read).toMatch(/^HTTP\/1\.1 403 /);
    // The client keeps its side open and silent: only the relay's timer can close the connection.
    await eventually(async () => (await openConnections(relay)) === 0, 3000, 'the relay to close the connection');
    expect(performance.now() - answered).toBeGreaterThanOrEqual(250);
    await eventually(async () => (await lingersEnded(relay, 'time')) === 1, 3000, 'the linger to be counted');
    socket.destroy();
  });

  it('stops reading a client that keeps sending once it has sent twice MAX_BODY_BYTES more', async () => {
    const relay = await relayWith({ MAX_BODY_BYTES: String(MiB) });
    const line = headerLine(notAllowed());
    // Declares far more than it may send, and keeps sending: the relay closes within about a body's worth.
    const exchange = await uploadThenRead(portOf(relay), head(relay, 200 * MiB) + line, chunksOf(64 * MiB));
    expect(exchange.error).toMatch(/ECONNRESET|EPIPE/);
    expect(exchange.written).toBeLessThan(32 * MiB);
    await eventually(async () => (await lingersEnded(relay, 'bytes')) === 1, 3000, 'the linger to be counted');
  });

  it('with REFUSED_BODY_LINGER_MS=0 closes at once, as before', async () => {
    const relay = await relayWith({ REFUSED_BODY_LINGER_MS: '0' });
    const line = headerLine(notAllowed());
    const exchange = await uploadThenRead(
      portOf(relay),
      head(relay, line.length + 16 * MiB) + line,
      chunksOf(16 * MiB),
    );
    expect(exchange.written).toBeLessThan(16 * MiB);
    expect(exchange.error).toMatch(/ECONNRESET|EPIPE/);
  });
});

/** The head of a `method` request for `path` whose body is framed by Content-Length or sent chunked. */
function bodyHead(
  relay: RunningRelay,
  method: string,
  path: string,
  framing: 'length' | 'chunked',
  bytes: number,
  headers: readonly string[] = [],
) {
  const declared = framing === 'chunked' ? 'transfer-encoding: chunked' : `content-length: ${bytes}`;
  const lines = [`${method} ${path} HTTP/1.1`, `host: ${new URL(relay.url).host}`, declared, ...headers];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** `bytes` of body in chunks, each framed as a chunk when `framing` is chunked, with the last chunk after them. */
function bodyChunks(framing: 'length' | 'chunked', bytes: number): Buffer[] {
  if (framing === 'length') return chunksOf(bytes);
  const framed = chunksOf(bytes).map((chunk) =>
    Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]),
  );
  return [...framed, Buffer.from('0\r\n\r\n')];
}

describe('a 405 for a wrong method carrying a body', () => {
  it.each(['length', 'chunked'] as const)(
    'lets a client still uploading (%s) read it, then closes',
    async (framing) => {
      const relay = await relayWith();
      const path = new URL(relay.tunnel).pathname;
      const exchange = await uploadThenRead(
        portOf(relay),
        bodyHead(relay, 'PUT', path, framing, 16 * MiB),
        bodyChunks(framing, 16 * MiB),
      );
      expect(exchange.error).toBeUndefined();
      expect(exchange.read).toMatch(/^HTTP\/1\.1 405 /);
      expect(exchange.read).toMatch(/\r\nallow: POST\r\n/i);
      expect(exchange.read).toMatch(/\r\nconnection: close\r\n/i);
      expect(exchange.read).toContain('{"error":"method_not_allowed","detail":"send envelopes with POST"}');
      await eventually(async () => (await lingersEnded(relay, 'client')) === 1, 3000, 'the linger to be counted');
    },
  );

  it('does not linger after a GET, which has no body', async () => {
    const relay = await relayWith();
    const response = await fetch(relay.tunnel);
    expect(response.status).toBe(405);
    await response.arrayBuffer();
    await eventually(async () => (await openConnections(relay)) <= 1, 3000, 'the GET connection to close');
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const end of ['client', 'time', 'bytes'] as const) expect(await lingersEnded(relay, end)).toBe(0);
  });
});

describe("Fastify's answers before the body has arrived", () => {
  it.each([
    ['a 404 for an unknown path', 'POST', '/nope', [], 404],
    [
      'a 404 for another method on the CSP path',
      'PUT',
      '/monitoring/security',
      ['content-type: application/csp-report'],
      404,
    ],
    ["the JSON body parser's 413 on an unknown path", 'POST', '/nope', ['content-type: application/json'], 413],
  ])('%s lets a client still uploading read it, then closes', async (_name, method, path, extra, status) => {
    const relay = await relayWith();
    const head = bodyHead(relay, method, path, 'length', 16 * MiB, extra);
    const exchange = await uploadThenRead(portOf(relay), head, chunksOf(16 * MiB));
    expect(exchange.error).toBeUndefined();
    expect(exchange.read).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(exchange.read).toMatch(/\r\nconnection: close\r\n/i);
    await eventually(async () => (await lingersEnded(relay, 'client')) === 1, 3000, 'the linger to be counted');
  });

  it('closes an unknown path whose body stops coming within REFUSED_BODY_LINGER_MS, not requestTimeout', async () => {
    const relay = await relayWith({ REFUSED_BODY_LINGER_MS: '300' });
    const socket = connect({ port: portOf(relay), host: '127.0.0.1', allowHalfOpen: true });
    let read = '';
    socket.on('data', (data: Buffer) => {
      read += data.toString('latin1');
    });
    socket.write(bodyHead(relay, 'POST', '/nope', 'length', 16 * MiB) + 'a'.repeat(1024));
    await eventually(() => read.includes('"error":"not_found"'), 3000, 'the 404');
    await eventually(async () => (await openConnections(relay)) === 0, 3000, 'the relay to close the connection');
    await eventually(async () => (await lingersEnded(relay, 'time')) === 1, 3000, 'the linger to be counted');
    socket.destroy();
  });
});

describe("Fastify's 503 while the relay closes", () => {
  it('lets a client still uploading a CSP report read it', async () => {
    const relay = await relayWith();
    const head = bodyHead(
      relay,
      'POST',
      `/monitoring/security?dsn=${encodeURIComponent(upstream.dsn)}`,
      'length',
      16 * MiB,
      ['content-type: application/csp-report'],
    );
    const socket = connect(portOf(relay), '127.0.0.1');
    await once(socket, 'connect');
    // A request begun before the close: its connection is not idle, so the close waits for it.
    socket.write(head.slice(0, 4));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = relay.app.close();
    await eventually(() => !relay.app.server.listening, 3000, 'the listener to close');
    const exchange = await uploadThenRead(socket, head.slice(4), chunksOf(16 * MiB));
    await closed;
    expect(exchange.error).toBeUndefined();
    expect(exchange.read).toMatch(/^HTTP\/1\.1 503 /);
    expect(exchange.read).toContain('"error":"Service Unavailable"');
    expect(exchange.read).toMatch(/\r\nconnection: close\r\n/i);
  });
});
