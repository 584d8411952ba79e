// Forwarding headers are believed only as far as the edge promises (issue 28.6): a client's X-Forwarded-Host that
// names none of the configured origins is not the request's host, and a client's X-Request-Id is not the request's
// id unless a trusted proxy is in front. Over real sockets: the screening is in the server's request listener, which
// inject() does not pass.
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { appForTest } from '../../with-web.ts';

async function listening(env: Record<string, string>) {
  const web = await appForTest(env);
  await web.app.listen({ port: 0, host: '127.0.0.1' });
  return (web.app.server.address() as AddressInfo).port;
}

function send(port: number, method: string, path: string, headers: Record<string, string>, body = '') {
  return new Promise<{ status: number; headers: Record<string, unknown> }>((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', method, path, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
const post = (port: number, headers: Record<string, string>) =>
  send(
    port,
    'POST',
    '/preferences',
    { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    'displayName=Ada&pageSize=10&theme=dark',
  );

describe('X-Forwarded-Host behind a trusted proxy', () => {
  const env = { TRUSTED_PROXY_HOPS: '1', PUBLIC_ORIGIN: 'https://shop.test' };

  it('naming another host does not make a cross-site POST same-origin', async () => {
    const port = await listening(env);
    const forged = { host: 'shop.test', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' };
    expect((await post(port, { ...forged, origin: 'https://evil.example' })).status).toBe(403);
    // Several entries: the last (the nearest proxy's) is the one read.
    const listed = { ...forged, 'x-forwarded-host': 'shop.test, evil.example' };
    expect((await post(port, { ...listed, origin: 'https://evil.example' })).status).toBe(403);
  });

  it("naming PUBLIC_ORIGIN's host is believed", async () => {
    const port = await listening(env);
    const edge = { host: 'web.internal', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'shop.test' };
    expect((await post(port, { ...edge, origin: 'https://shop.test' })).status).toBe(303);
  });
});

describe('X-Request-Id', () => {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  const requests = [
    ['a page GET (the fast path)', 'GET', '/catalog'],
    ['a POST (through Fastify)', 'POST', '/preferences'],
  ] as const;

  it.each(requests)('from a client with nothing trusted in front is not the id: %s', async (_, method, path) => {
    const port = await listening({});
    const res = await send(port, method, path, { 'x-request-id': 'chosen-by-client' });
    expect(res.headers['x-request-id']).toMatch(uuid);
  });

  it.each(requests)('from a trusted proxy is the id: %s', async (_, method, path) => {
    const port = await listening({ TRUSTED_PROXY_HOPS: '1' });
    const res = await send(port, method, path, { 'x-request-id': 'set-by-the-edge' });
    expect(res.headers['x-request-id']).toBe('set-by-the-edge');
  });
});
