// The router's refusals (a path that does not decode, a too long parameter) over loopback: the path quoted to a
// bound, the request id, Connection: close while draining, and a lingering close for a body still arriving.
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chunksOf, getAsWritten, uploadThenRead } from '@app/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createServiceApp,
  type LingerEnd,
  lingerLimits,
  readEnv,
  readServerConfig,
  type ServiceApp,
  type ServiceAppOptions,
} from '../src/index.ts';

const MiB = 1024 * 1024;
const config = readServerConfig(readEnv({ LOG_LEVEL: 'silent' }), 0);
let service: ServiceApp | undefined;
// Keep-alive, so a Connection: close in an answer is the server's choice.
const agent = new Agent({ keepAlive: true });
afterEach(async () => {
  agent.destroy();
  await service?.app.close();
  service = undefined;
});

async function listening(options: ServiceAppOptions = {}): Promise<number> {
  service = await createServiceApp('test', config, {
    ...options,
    fastify: { routerOptions: { maxParamLength: 100 } },
  });
  service.app.get('/items/:id', async () => 'item');
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  return (service.app.server.address() as AddressInfo).port;
}

const get = (port: number, path: string) => getAsWritten(`http://127.0.0.1:${port}${path}`, agent);

const badPath = `/%zz${'a'.repeat(15_000)}`;

describe('the router refusals', () => {
  it.each([
    ['a %-escape that is not two hex digits', badPath, 400, 'FST_ERR_BAD_URL', 'is not a valid URL'],
    ['a %-escape that is not UTF-8', `/%C0%AF${'b'.repeat(15_000)}`, 400, 'FST_ERR_BAD_URL', 'is not a valid URL'],
    ['a parameter over maxParamLength', `/items/${'c'.repeat(15_000)}`, 414, 'FST_ERR_MAX_PARAM_LENGTH', 'segment'],
  ])('%s: answered with the path cut to 64 characters', async (_name, path, status, code, reason) => {
    const answer = await get(await listening(), path);
    expect(answer.status).toBe(status);
    expect(answer.body.length).toBeLessThan(400);
    const body = JSON.parse(answer.body);
    expect(body).toMatchObject({ statusCode: status, code });
    expect(body.message).toContain(JSON.stringify(path.slice(0, 64)));
    expect(body.message).toContain(`… (${path.length} characters) `);
    expect(body.message).toContain(reason);
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers.connection).toBe('keep-alive');
  });

  it('quotes a short path whole', async () => {
    const answer = await get(await listening(), '/%zz');
    expect(JSON.parse(answer.body).message).toBe(
      'the path "/%zz" is not a valid URL: a % in it is not followed by two hex digits, or its %-escapes are not UTF-8',
    );
  });

  it('closes the connection while draining', async () => {
    const port = await listening();
    (service as ServiceApp).readiness.draining = true;
    expect((await get(port, '/%zz')).headers.connection).toBe('close');
  });

  it('lets a client still uploading read it, lingering within the limits given', async () => {
    const ends: LingerEnd[] = [];
    const port = await listening({
      refusedBodyLinger: { limits: lingerLimits(5_000, 16 * MiB), ended: (how) => ends.push(how) },
    });
    const head = `POST /%zz HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${16 * MiB}\r\n\r\n`;
    const exchange = await uploadThenRead(port, head, chunksOf(16 * MiB));
    expect(exchange.error).toBeUndefined();
    expect(exchange.read).toMatch(/^HTTP\/1\.1 400 /);
    expect(exchange.read.toLowerCase()).toContain('connection: close');
    await expect.poll(() => ends).toEqual(['client']);
  });
});
