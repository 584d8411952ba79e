// The development tunnel refusing a body over the relay's 20 MiB, declared or streamed: a 413 saying so, then the
// connection closes lingering (decision 039), so a client writing its whole body first reads the answer. Before, the
// declared case stopped reading after its 413 until the keep-alive timeout (5 s + Node's 1 s) reset the connection.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chunksOf, uploadThenRead } from '@app/test-kit';
import { describe, expect, it, onTestFinished } from 'vitest';
import { TUNNEL_BODY_LIMIT } from '../../../src/server/telemetry/tunnel-proxy.ts';
import { appForTest } from '../../with-web.ts';

const MiB = 1024 * 1024;

/** A relay stand-in that reads every body to its end and answers 200; `bytes` is the most one request sent it. */
async function relayStandIn() {
  const seen = { port: 0, bytes: 0 };
  const relay = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      seen.bytes = Math.max(seen.bytes, bytes);
    });
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  onTestFinished(() => void relay.close());
  relay.listen(0, '127.0.0.1');
  await once(relay, 'listening');
  seen.port = (relay.address() as AddressInfo).port;
  return seen;
}

/** `chunks` in HTTP/1.1 chunked framing, with its last chunk. */
const chunked = (chunks: readonly Buffer[]) => [
  ...chunks.flatMap((chunk) => [Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]),
  Buffer.from('0\r\n\r\n'),
];

describe("a tunnel body over the relay's 20 MiB", () => {
  it.each([
    ['declared by its Content-Length', `content-length: ${24 * MiB}`, chunksOf(24 * MiB)],
    ['streamed chunked, cut as it passes the limit', 'transfer-encoding: chunked', chunked(chunksOf(24 * MiB))],
  ])(
    '%s: 413 with a message, and a client writing all of it first reads the answer',
    async (_name, length, body) => {
      const relay = await relayStandIn();
      const { app } = await appForTest({ TUNNEL_PATH: '/monitoring', TUNNEL_TARGET: `http://127.0.0.1:${relay.port}` });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      const head = `POST /monitoring HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: text/plain;charset=UTF-8\r\n${length}\r\n\r\n`;
      const exchange = await uploadThenRead(port, head, body);
      expect(exchange.error).toBeUndefined();
      expect(exchange.written).toBe(body.reduce((sum, chunk) => sum + chunk.length, 0));
      expect(exchange.read).toMatch(/^HTTP\/1\.1 413 /);
      expect(exchange.read).toMatch(/\r\nconnection: close\r\n/i);
      expect(exchange.read).toContain(`the body exceeds the relay's ${TUNNEL_BODY_LIMIT} bytes`);
      // Closed once the client had sent everything, well before the 5 s keep-alive timeout: timed from the client's
      // end, so how long the upload took on a loaded machine does not count.
      expect(exchange.closedAfterEndMs).toBeLessThan(2_500);
      expect(relay.bytes).toBeLessThanOrEqual(TUNNEL_BODY_LIMIT);
    },
    30_000,
  );
});
