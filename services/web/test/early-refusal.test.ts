// A form body refused before it all arrived (413, Fastify closes the connection): a client still uploading reads
// the answer, not a reset (service-kit's lingering close, decision 039).
import type { AddressInfo } from 'node:net';
import { chunksOf, uploadThenRead } from '@app/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebApp } from '../src/server/app.ts';
import { testApp } from './helpers.ts';

const MiB = 1024 * 1024;
let web: WebApp;
let port: number;
beforeAll(async () => {
  web = await testApp();
  await web.app.listen({ port: 0, host: '127.0.0.1' });
  port = (web.app.server.address() as AddressInfo).port;
});
afterAll(() => web?.app.close());

const formHead = (length: number) =>
  `POST /preferences HTTP/1.1\r\nhost: 127.0.0.1\r\norigin: http://127.0.0.1:${port}\r\n` +
  `content-type: application/x-www-form-urlencoded\r\ncontent-length: ${length}\r\n\r\n`;

describe('a form body over the 64 KiB limit', () => {
  it('is answered 413, and a client writing all of it before reading reads the answer', async () => {
    // More than loopback's socket buffers hold, so the client is still writing when the answer is out.
    const exchange = await uploadThenRead(port, formHead(16 * MiB), chunksOf(16 * MiB));
    expect(exchange.error).toBeUndefined();
    expect(exchange.written).toBe(16 * MiB);
    expect(exchange.read).toMatch(/^HTTP\/1\.1 413 /);
  });
});
