// `npm start` as the README promises it: web, relay and the local telemetry viewer as plain processes
// (scripts/run-services.ts), a page served, and an envelope posted to the web service's tunnel path shown by the
// viewer after passing through the relay. Then Ctrl-C's signal stops everything cleanly.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';
import { freePort } from '@app/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorEnvelope, eventually, newEventId } from './support/containers.ts';
import { serverTelemetryInSpotlight, spotlightEvent } from './support/spotlight.ts';
import { ensureWebBuilt } from './support/web.ts';

const root = fileURLToPath(new URL('../', import.meta.url));

describe('npm start (scripts/run-services.ts)', () => {
  let stack: ChildProcess;
  let output = '';
  const url: Record<'web' | 'relay' | 'viewer', string> = { web: '', relay: '', viewer: '' };

  beforeAll(async () => {
    ensureWebBuilt(); // what the web service's prestart would do, once for every suite
    const [web, relay, viewer] = [await freePort(), await freePort(), await freePort()];
    const ports = { WEB_PORT: String(web), RELAY_PORT: String(relay), VIEWER_PORT: String(viewer) };
    url.web = `http://127.0.0.1:${ports.WEB_PORT}`;
    url.relay = `http://127.0.0.1:${ports.RELAY_PORT}`;
    url.viewer = `http://127.0.0.1:${ports.VIEWER_PORT}`;
    stack = spawn(process.execPath, ['scripts/run-services.ts', 'start'], {
      cwd: root,
      env: { ...process.env, ...ports, LOG_LEVEL: 'info', DIAGNOSTICS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [stack.stdout, stack.stderr]) stream?.on('data', (chunk: Buffer) => (output += chunk));
    const ready = (target: string) => async () => (await fetch(target)).ok;
    await eventually(ready(`${url.viewer}/health`), 120_000, `the viewer to answer (output: ${output})`);
    await eventually(ready(`${url.relay}/readyz`), 60_000, `the relay to be ready (output: ${output})`);
    await eventually(ready(`${url.web}/readyz`), 60_000, `web to be ready (output: ${output})`);
  });
  afterAll(() => {
    if (stack?.exitCode === null) stack.kill('SIGKILL');
  });

  it('serves the example product', async () => {
    const response = await fetch(`${url.web}/catalog`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<div id="root">');
  });

  it('shows an envelope from the tunnel path in the viewer, through the relay', async () => {
    const eventId = newEventId();
    const dsn = `http://local@127.0.0.1:${new URL(url.viewer).port}/1`;
    // `npm start` gives web and relay the path `tunnel: true` derives from this DSN.
    const response = await fetch(`${url.web}${tunnelPathOf(dsn)}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: errorEnvelope(dsn, eventId, 'npm start smoke test'),
    });
    expect(response.status).toBe(200);
    const event = await spotlightEvent(url.viewer, eventId, 20_000);
    expect(event.type).toBe('application/x-sentry-envelope');
    expect(event.data).toContain('npm start smoke test');
  });

  it("shows the server's own error and spans in the viewer, through the relay", async () => {
    const accepted = async () => {
      const text = await (await fetch(`${url.relay}/metrics`)).text();
      return Number(/^relay_envelopes_accepted_total\{project="loopback"\} (\d+)/m.exec(text)?.[1] ?? 0);
    };
    const before = await accepted();
    const { error, spans } = await serverTelemetryInSpotlight(url.web, url.viewer);
    expect(error).toContain('server-error');
    expect(spans).toContain('/catalog');
    // No browser here: what the relay accepted meanwhile came from the server's SDK.
    expect(await accepted()).toBeGreaterThanOrEqual(before + 2);
  });

  it('stops every process gracefully on SIGTERM and exits 0', async () => {
    stack.kill('SIGTERM');
    const [code] = (await once(stack, 'exit')) as [number | null];
    expect(code).toBe(0);
    // Each service drains and says so (npm, between the runner and the service, then exits by the same signal).
    expect(output).toMatch(/relay +\| .*"msg":"shut down cleanly"/);
    expect(output).toMatch(/web +\| .*"msg":"shut down cleanly"/);
    expect(output).toMatch(/viewer\| exited/);
    // Nothing left behind listening.
    for (const target of Object.values(url)) await expect(fetch(target)).rejects.toThrow();
  });
});
