// /readyz on the public port says ready or not; the reasons (heap, RSS, event-loop figures while shedding) are told
// on the admin port only, which the ingress does not reach (issue 28.7).
import { describe, expect, it } from 'vitest';
import { appForTest } from '../../with-web.ts';

const SHEDDING = 'shedding load (heapUsedBytes): event-loop delay 12 ms, 40 % busy, heap 300 MiB, RSS 420 MiB';

describe('readiness while not ready', () => {
  it('with METRICS_PORT: the main port says "not ready" only, the admin port gives the reasons', async () => {
    const web = await appForTest({ METRICS_PORT: '0' });
    web.readiness.checks.push(() => SHEDDING);
    const main = await web.app.inject({ url: '/readyz' });
    expect(main.statusCode).toBe(503);
    expect(main.json()).toEqual({ status: 'not ready' });
    expect(main.body).not.toMatch(/MiB|heap|RSS/);

    const admin = await fetch(`http://127.0.0.1:${web.adminPort?.port()}/readyz`);
    expect(admin.status).toBe(503);
    expect(await admin.json()).toEqual({ status: 'not ready', reasons: [SHEDDING] });
  });

  it('without an admin port (metrics on the main port too), the reasons stay where the metrics are', async () => {
    const web = await appForTest();
    web.readiness.checks.push(() => SHEDDING);
    expect((await web.app.inject({ url: '/readyz' })).json()).toEqual({ status: 'not ready', reasons: [SHEDDING] });
  });
});
