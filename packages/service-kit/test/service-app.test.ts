// createServiceApp: the Fastify instance every service starts from (logging, ids, health and readiness routes).
import { afterEach, describe, expect, it } from 'vitest';
import { createServiceApp, readEnv, readServerConfig, type ServiceApp } from '../src/index.ts';

const config = readServerConfig(readEnv({ LOG_LEVEL: 'silent' }), 0);
let service: ServiceApp | undefined;
afterEach(async () => {
  await service?.app.close();
});

describe('createServiceApp', () => {
  it('answers /healthz and /readyz', async () => {
    service = await createServiceApp('test', config);
    expect((await service.app.inject('/healthz')).json()).toEqual({ status: 'ok' });
    const ready = await service.app.inject('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });

  it('fails readiness while draining or when a check fails, but stays live', async () => {
    service = await createServiceApp('test', config);
    service.readiness.checks.push(() => 'spool not writable');
    const failing = await service.app.inject('/readyz');
    expect(failing.statusCode).toBe(503);
    expect(failing.json()).toEqual({ status: 'not ready', reasons: ['spool not writable'] });
    service.readiness.draining = true;
    expect((await service.app.inject('/readyz')).json()).toEqual({ status: 'draining' });
    expect((await service.app.inject('/healthz')).statusCode).toBe(200);
  });

  it('with briefReadiness, /readyz says "not ready" without the reasons', async () => {
    service = await createServiceApp('test', config, { briefReadiness: true });
    service.readiness.checks.push(() => 'heap 300 MiB');
    const failing = await service.app.inject('/readyz');
    expect([failing.statusCode, failing.json()]).toEqual([503, { status: 'not ready' }]);
  });

  it("takes no client's X-Request-Id without a trusted proxy in front", async () => {
    service = await createServiceApp('test', config);
    const res = await service.app.inject({ url: '/healthz', headers: { 'x-request-id': 'req-123' } });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('behind a trusted proxy, echoes its well-formed X-Request-Id and replaces a malformed one', async () => {
    service = await createServiceApp('test', config, { trustedProxyHops: 1 });
    const kept = await service.app.inject({ url: '/healthz', headers: { 'x-request-id': 'req-123' } });
    expect(kept.headers['x-request-id']).toBe('req-123');
    const replaced = await service.app.inject({ url: '/healthz', headers: { 'x-request-id': 'bad id\nforged' } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
