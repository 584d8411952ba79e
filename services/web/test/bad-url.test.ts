// A path that does not decode (Fastify's router refuses it before any hook): a 400 quoting at most 64 characters of
// it, with the request id; a client still uploading reads it, then the connection closes (service-kit's
// framework-errors.ts).
import { request } from 'node:http';
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

/** A GET of `path` as written (fetch would normalise it): status, headers and body. */
function get(path: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('a path that does not decode', () => {
  it.each([`/%zz${'a'.repeat(15_000)}`, `/catalog/%C0%AF${'b'.repeat(15_000)}`])(
    'is a 400 quoting 64 characters of it (%#)',
    async (path) => {
      const answer = await get(path);
      expect(answer.status).toBe(400);
      expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(answer.body.length).toBeLessThan(400);
      const { code, message } = JSON.parse(answer.body);
      expect(code).toBe('FST_ERR_BAD_URL');
      expect(message).toContain(`${JSON.stringify(path.slice(0, 64))}… (${path.length} characters) is not a valid URL`);
    },
  );

  it('lets a client still uploading read the 400, then closes', async () => {
    const head = `POST /%zz HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${16 * MiB}\r\n\r\n`;
    const exchange = await uploadThenRead(port, head, chunksOf(16 * MiB));
    expect(exchange.error).toBeUndefined();
    expect(exchange.read).toMatch(/^HTTP\/1\.1 400 /);
    expect(exchange.read).toMatch(/\r\nconnection: close\r\n/i);
  });
});
