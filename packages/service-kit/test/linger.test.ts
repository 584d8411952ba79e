// lingerAfterAnswer on a plain node:http server answering before the body arrived: the client still uploading
// reads the answer, and `ended` (optional) is told how the linger ended.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chunksOf, uploadThenRead } from '@app/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { type LingerEnd, lingerAfterAnswer, lingerLimits } from '../src/index.ts';

const MiB = 1024 * 1024;
let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** A server answering 413 at once with `Connection: close`, lingering as `linger` says; returns its port. */
async function refusingServer(linger: (req: IncomingMessage) => void): Promise<number> {
  server = createServer((req, res) => {
    req.resume();
    linger(req);
    res.writeHead(413, { connection: 'close', 'content-type': 'text/plain' }).end('too large');
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const head = `POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${16 * MiB}\r\n\r\n`;

describe('lingerAfterAnswer', () => {
  it('lets a client still uploading read the answer, and tells `ended` how the linger ended', async () => {
    const ends: LingerEnd[] = [];
    const port = await refusingServer((req) =>
      lingerAfterAnswer(req.socket, lingerLimits(5_000, 16 * MiB), (how) => ends.push(how)),
    );
    const exchange = await uploadThenRead(port, head, chunksOf(16 * MiB));
    expect(exchange.error).toBeUndefined();
    expect(exchange.read).toMatch(/^HTTP\/1\.1 413 /);
    await expect.poll(() => ends).toEqual(['client']);
  });

  it('lingers the same without `ended`', async () => {
    const port = await refusingServer((req) => lingerAfterAnswer(req.socket, lingerLimits(5_000, 16 * MiB)));
    const exchange = await uploadThenRead(port, head, chunksOf(16 * MiB));
    expect(exchange.error).toBeUndefined();
    expect(exchange.written).toBe(16 * MiB);
    expect(exchange.read).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('does not linger with ms 0: the client still uploading meets a reset', async () => {
    const ends: LingerEnd[] = [];
    const port = await refusingServer((req) =>
      lingerAfterAnswer(req.socket, { ms: 0, bytes: 0 }, (how) => ends.push(how)),
    );
    const exchange = await uploadThenRead(port, head, chunksOf(16 * MiB));
    expect(exchange.error).toMatch(/ECONNRESET|EPIPE/);
    expect(ends).toEqual([]);
  });
});
