import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createServiceApp, readEnv, readServerConfig, type ServiceApp, serveAdminPort } from '../src/index.ts';

const config = readServerConfig(readEnv({ LOG_LEVEL: 'silent' }), 0);
let service: ServiceApp | undefined;
afterEach(async () => {
  await service?.app.close();
});

/** A service with its admin port on a free port, listening on its main one too; returns both base URLs. */
async function withAdminPort() {
  service = await createServiceApp('test', config);
  const registry = new Registry();
  new Counter({ name: 'test_things_total', help: 'things', registers: [registry] }).inc(3);
  const admin = serveAdminPort(service.app, { port: 0, host: '127.0.0.1', registry, readiness: service.readiness });
  service.app.get('/page', async () => 'page');
  const main = await service.app.listen({ port: 0, host: '127.0.0.1' });
  return { main, admin: `http://127.0.0.1:${admin.port()}`, readiness: service.readiness };
}

describe('serveAdminPort', () => {
  it('serves /metrics, /healthz and /readyz on its own port, and nothing else', async () => {
    const { admin, main } = await withAdminPort();
    const metrics = await fetch(`${admin}/metrics`);
    expect([metrics.status, metrics.headers.get('content-type')]).toEqual([200, new Registry().contentType]);
    expect(await metrics.text()).toContain('test_things_total 3');
    const health = await fetch(`${admin}/healthz`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
    expect((await fetch(`${admin}/readyz`)).status).toBe(200);
    const page = await fetch(`${admin}/page`);
    expect([page.status, ((await page.json()) as { error?: string }).error]).toEqual([404, 'not_found']);
    expect((await fetch(`${admin}/healthz`, { method: 'POST' })).status).toBe(405);
    expect(await (await fetch(`${main}/page`)).text()).toBe('page');
  });

  it('reports readiness as the main port does, and stays live while draining', async () => {
    const { admin, readiness } = await withAdminPort();
    readiness.checks.push(() => 'shedding load');
    const ready = await fetch(`${admin}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([503, { status: 'not ready', reasons: ['shedding load'] }]);
    readiness.draining = true;
    expect(await (await fetch(`${admin}/readyz`)).json()).toEqual({ status: 'draining' });
    expect((await fetch(`${admin}/healthz`)).status).toBe(200);
  });

  it('closes with the app', async () => {
    const { admin } = await withAdminPort();
    await service?.app.close();
    service = undefined;
    await expect(fetch(`${admin}/healthz`)).rejects.toThrow();
  });
});
