// The relay as a real process: exit 78 on bad configuration, a held spool, kill -9 and SIGTERM under load.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { attachmentItem, type CaptureServer, envelope, eventItem, eventually, runToExit, tempDir } from '@app/test-kit';
import { withCapture, withProcesses } from '@app/test-kit/with-capture';
import { beforeAll, describe, expect, it } from 'vitest';
import { RELAY_ENTRY, spawnRelay } from './with-relay.ts';

const under = withCapture({ projectId: '5', publicKey: 'pk' });
const running = withProcesses(under);
let capture: CaptureServer;
let dsn: string;
beforeAll(() => ({ capture, dsn } = under));

const start = async (env: Record<string, string>) => {
  const service = await spawnRelay(env);
  running.push(service);
  return service;
};

/** Posts envelopes from `connections` loops until `stop()`; returns the event ids answered with 200 and failures. */
function load(url: string, connections: number) {
  const accepted: string[] = [];
  const failures: string[] = [];
  let stopped = false;
  let counter = 0;
  const loops = Array.from({ length: connections }, async () => {
    while (!stopped) {
      const id = (counter++).toString(16).padStart(32, '0');
      try {
        const response = await fetch(`${url}/monitoring`, {
          method: 'POST',
          body: envelope({ event_id: id, dsn }, [eventItem()]),
        });
        await response.arrayBuffer();
        if (response.status === 200) accepted.push(id);
        else failures.push(`${id}: ${response.status}`);
      } catch (error) {
        failures.push(`${id}: ${(error as Error).message}`);
      }
    }
  });
  return {
    accepted,
    failures,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

describe('the relay process', () => {
  it('refuses to start without ALLOWED_DSNS (exit 78, naming the variable)', async () => {
    const result = await runToExit(RELAY_ENTRY, { env: { ALLOWED_DSNS: '', ALLOW_LOOPBACK_DSNS: '' } });
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(/ALLOWED_DSNS is required/);
    const bad = await runToExit(RELAY_ENTRY, {
      env: {
        ALLOWED_DSNS: 'https://nokey.example.com/1',
        SPOOL_MODE: 'maybe',
        INBOUND_FILTERS: 'chrome-extension',
        REPLAY_MAX_LOOP_DELAY_MS: '-1',
        REPLAY_MAX_LOOP_PERCENT: '80', // replaced by REPLAY_MAX_LOOP_DELAY_MS (decision 034): stopped, not ignored
        REFUSED_BODY_LINGER_MS: '60001',
      },
    });
    expect(bad.code).toBe(78);
    expect(bad.stderr).toMatch(/ALLOWED_DSNS entry .* has no public key/);
    expect(bad.stderr).toMatch(/SPOOL_MODE must be one of durable, fast/);
    expect(bad.stderr).toMatch(/INBOUND_FILTERS names an unknown filter .*chrome-extension/);
    expect(bad.stderr).toMatch(/REPLAY_MAX_LOOP_DELAY_MS must be an integer from 0 to 1000/);
    expect(bad.stderr).toMatch(/REPLAY_MAX_LOOP_PERCENT is no longer read: set REPLAY_MAX_LOOP_DELAY_MS instead/);
    expect(bad.stderr).toMatch(/REFUSED_BODY_LINGER_MS must be an integer from 0 to 60000/);
  });

  it('refuses to start on a spool directory another relay holds (exit 1, saying why)', async () => {
    const spoolDir = tempDir('relay-shared-');
    await start({ ALLOWED_DSNS: dsn, SPOOL_DIR: spoolDir });
    const second = await runToExit(RELAY_ENTRY, { env: { ALLOWED_DSNS: dsn, SPOOL_DIR: spoolDir } });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/"code":"SPOOL_IN_USE".*in use by another telemetry-relay process/);
  });

  it('durable mode: after kill -9 under load (large envelopes too), a restart delivers everything it answered 200 for', async () => {
    const spoolDir = tempDir('relay-kill-');
    const env = { ALLOWED_DSNS: dsn, SPOOL_DIR: spoolDir, SPOOL_MODE: 'durable' };
    capture.setBehaviour({ kind: 'stall' }); // nothing gets delivered before the kill: all of it is in flight or spooled
    const first = await start(env);
    const traffic = load(first.url, 8);
    await eventually(() => traffic.accepted.length >= 200, 10_000, '200 accepted envelopes');
    // Large envelopes, whose bodies the spool keeps in files of their own, answered 200 amid the load.
    const large = await Promise.all(
      [1, 2, 3].map(async (n) => {
        const id = `1a${n}`.padStart(32, 'f');
        const body = envelope({ event_id: id, dsn }, [eventItem(), attachmentItem(Buffer.alloc(512 * 1024, n))]);
        const response = await fetch(`${first.url}/monitoring`, { method: 'POST', body });
        return response.status === 200 ? id : `${id}: ${response.status}`;
      }),
    );
    expect(large).toEqual([
      'fffffffffffffffffffffffffffff1a1',
      'fffffffffffffffffffffffffffff1a2',
      'fffffffffffffffffffffffffffff1a3',
    ]);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(readdirSync(join(spoolDir, 'bodies'))).toHaveLength(large.length);
    await traffic.stop();
    const acknowledged = new Set([...traffic.accepted, ...large]);

    capture.setBehaviour({ kind: 'accept' });
    capture.clear();
    await start(env);
    await eventually(
      () => [...acknowledged].every((id) => capture.envelopes.some((e) => e.header.event_id === id)),
      15_000,
      `all ${acknowledged.size} acknowledged envelopes upstream`,
    );
  });

  it('SIGTERM under load: readiness fails first, no request fails, and what was in memory arrives after a restart', async () => {
    const spoolDir = tempDir('relay-term-');
    const env = {
      ALLOWED_DSNS: dsn,
      SPOOL_DIR: spoolDir,
      SPOOL_MODE: 'fast',
      SHUTDOWN_DRAIN_DELAY_MS: '300',
      UPSTREAM_TIMEOUT_MS: '1000',
    };
    const relay = await start(env);
    const traffic = load(relay.url, 8);
    await eventually(() => traffic.accepted.length >= 100, 10_000, '100 accepted envelopes');
    capture.setBehaviour({ kind: 'stall' }); // some envelopes are still in memory when the signal comes
    await new Promise((resolve) => setTimeout(resolve, 100));
    relay.child.kill('SIGTERM');
    // the load balancer: stops sending once readiness fails
    await eventually(async () => (await fetch(`${relay.url}/readyz`)).status === 503, 5000, 'readiness to fail');
    await traffic.stop();
    expect(await relay.exited).toBe(0);
    expect(traffic.failures).toEqual([]);

    capture.setBehaviour({ kind: 'accept' });
    await start(env);
    await eventually(
      () => traffic.accepted.every((id) => capture.envelopes.some((e) => e.header.event_id === id)),
      15_000,
      `all ${traffic.accepted.length} accepted envelopes upstream`,
    );
  });
});
