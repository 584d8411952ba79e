// A service as a real process: exit 78 on bad configuration, JSON logs with request ids, and graceful shutdown on
// SIGTERM (readiness first, in-flight requests finished, the grace period enforced).
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { runToExit, type ServiceProcess, spawnService, timerLateness } from '@app/test-kit';
import { afterEach, describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/slow-service.ts', import.meta.url));
let service: ServiceProcess | undefined;
afterEach(async () => {
  await service?.kill();
});

describe('a service process', () => {
  it('exits 78 naming the bad variable when configuration is invalid', async () => {
    const { code, stderr } = await runToExit(fixture, { env: { PORT: 'eighty', SHUTDOWN_GRACE_MS: '-1' } });
    expect(code).toBe(78);
    const line = JSON.parse(stderr.trim().split('\n').at(-1) ?? '{}');
    expect(line).toMatchObject({ code: 'CONFIG_INVALID', level: 60 });
    expect(line.problems).toEqual([
      'PORT must be an integer from 0 to 65535 (got "eighty")',
      'SHUTDOWN_GRACE_MS must be an integer from 0 to 600000 (got "-1")',
    ]);
  });

  it('logs JSON lines with the request id', async () => {
    service = await spawnService(fixture);
    await fetch(`${service.url}/slow?ms=0`, { headers: { 'x-request-id': 'log-me' } });
    await expect
      .poll(() => service?.logs.find((l) => l.requestId === 'log-me' && l.msg === 'request completed'))
      .toMatchObject({ service: 'fixture', level: 30 });
  });

  it('on SIGTERM fails readiness first, finishes the request in flight, then exits 0', async () => {
    service = await spawnService(fixture, { env: { SHUTDOWN_DRAIN_DELAY_MS: '400', SHUTDOWN_GRACE_MS: '5000' } });
    const inFlight = fetch(`${service.url}/slow?ms=1000`);
    await expect
      .poll(() =>
        service?.logs.some(
          (l) => l.msg === 'incoming request' && String(l.req && (l.req as { url: string }).url).startsWith('/slow'),
        ),
      )
      .toBe(true);
    service.child.kill('SIGTERM');
    await expect.poll(async () => (await fetch(`${service?.url}/readyz`)).status).toBe(503);
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ sleptMs: 1000 });
    expect(await service.exited).toBe(0);
    expect(service.logs.map((l) => l.msg)).toContain('shut down cleanly');
  });

  it.each([
    ['shuts down on SIGHUP by default (close-with-grace)', {}, true],
    ['keeps serving on a SIGHUP it owns (ownSignals: the relay reloads its projects)', { OWN_SIGNALS: '1' }, false],
  ])('%s', async (_name, env, exits) => {
    service = await spawnService(fixture, { env: { SHUTDOWN_DRAIN_DELAY_MS: '0', SHUTDOWN_GRACE_MS: '2000', ...env } });
    service.child.kill('SIGHUP');
    const code = await Promise.race([service.exited, sleep(1_500).then(() => 'running')]);
    expect(code).toBe(exits ? 0 : 'running');
    if (!exits) {
      expect((await fetch(`${service.url}/slow?ms=0`)).status).toBe(200);
      expect(service.logs.map((l) => l.msg)).toContain('SIGHUP handled by the service');
    }
  });

  // Logs go to a pipe; a process whose reader is gone (a dev's `npm start | tool` after the tool quit) must still exit
  // on SIGTERM rather than retry writing its last line forever.
  it('exits on SIGTERM after its stdout reader has gone', async () => {
    service = await spawnService(fixture, { env: { SHUTDOWN_DRAIN_DELAY_MS: '0', SHUTDOWN_GRACE_MS: '2000' } });
    service.child.stdout?.destroy();
    service.child.kill('SIGTERM');
    const code = await Promise.race([service.exited, sleep(4_000).then(() => 'still running 4 s after SIGTERM')]);
    expect(code).toBe(0);
  });

  it('exits 1 when in-flight work outlasts the grace period', async () => {
    service = await spawnService(fixture, { env: { SHUTDOWN_GRACE_MS: '300' } });
    const inFlight = fetch(`${service.url}/slow?ms=10000`).catch((error: unknown) => error);
    await expect.poll(() => service?.logs.some((l) => l.msg === 'incoming request')).toBe(true);
    const start = Date.now();
    const late = timerLateness(300); // the grace: what this run's host delays beyond it counts not
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(1);
    expect(Date.now() - start).toBeLessThan(3000 + (await late));
    expect(await inFlight).toBeInstanceOf(Error);
  });
});
