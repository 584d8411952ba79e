// Both services as real processes with their admin ports (METRICS_PORT, as in the pods), the relay's upstream a
// capture server, and the traffic and faults the Prometheus suite watches them under: steady page and envelope
// traffic (with events a filter drops and scrubbing rewrites), an upstream that stalls, foreign-DSN envelopes, a burst
// of 5xx, slow pages, and a web pod over its in-flight cap.

import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';
import { type CaptureServer, freePort, type ServiceProcess, spawnService, startCaptureServer } from '@app/test-kit';
import { errorEnvelope, newEventId } from './containers.ts';
import { startWeb } from './web.ts';

const relayEntry = fileURLToPath(new URL('../../services/telemetry-relay/src/main.ts', import.meta.url));

/** What the relay's spool keeps before it discards an envelope as expired (the suite's scaled age alert is 60 s). */
export const SPOOL_MAX_AGE_SECONDS = 70;
/** The web pod's in-flight cap; `holdInFlight` takes all of it. */
const SHED_MAX_IN_FLIGHT = 24;

export interface ObservedStack {
  capture: CaptureServer;
  relay: ServiceProcess;
  web: ServiceProcess;
  /** host:port of each workload's admin port, by the workload's name in the manifests. */
  adminAddress: Record<'web' | 'telemetry-relay', string>;
  close(): Promise<void>;
}

export async function startObservedStack(): Promise<ObservedStack> {
  const capture = await startCaptureServer();
  const [relayAdmin, webAdmin] = [await freePort(), await freePort()];
  const relay = await spawnService(relayEntry, {
    env: {
      ALLOWED_DSNS: capture.dsn(),
      UPSTREAM_URL: capture.envelopeUrl('1'),
      SPOOL_DIR: mkdtempSync(join(tmpdir(), 'observed-stack-spool-')),
      SPOOL_MAX_AGE_SECONDS: String(SPOOL_MAX_AGE_SECONDS),
      // A stalled upstream shows as 3 s timeouts (over the 2 s p99 alert) retried every 2 s at most.
      UPSTREAM_TIMEOUT_MS: '3000',
      RETRY_BASE_MS: '500',
      RETRY_MAX_MS: '2000',
      METRICS_PORT: String(relayAdmin),
    },
  });
  const web = await startWeb({
    SENTRY_DSN: capture.dsn(),
    TUNNEL_TARGET: relay.url,
    SENTRY_TRACES_SAMPLE_RATE: '0',
    DIAGNOSTICS: '1',
    // The item page's deferred part: what makes the slow-page fault slow (the healthy traffic never asks for it).
    CATALOG_RELATED_DELAY_MS: '1500',
    SHED_MAX_IN_FLIGHT: String(SHED_MAX_IN_FLIGHT),
    METRICS_PORT: String(webAdmin),
  });
  return {
    capture,
    relay,
    web,
    adminAddress: { web: `127.0.0.1:${webAdmin}`, 'telemetry-relay': `127.0.0.1:${relayAdmin}` },
    async close() {
      await web.kill();
      await relay.kill();
      await capture.close();
    },
  };
}

/** Calls `send` `perSecond` times a second without waiting for answers, until the returned function is called. */
export function steady(perSecond: number, send: () => Promise<unknown>): () => void {
  const timer = setInterval(() => void send().catch(() => undefined), 1000 / perSecond);
  return () => clearInterval(timer);
}

export const getPage = async (url: string) => (await fetch(url)).arrayBuffer();

/** Posts an envelope for `dsn` to the relay's tunnel path, the one `pathDsn` (an allowed DSN) gives. */
export const postEnvelope = (relayUrl: string, dsn: string, pathDsn = dsn) =>
  fetch(`${relayUrl}${tunnelPathOf(pathDsn)}`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain;charset=UTF-8' },
    body: errorEnvelope(dsn, newEventId(), 'prometheus suite'),
  }).then((response) => response.arrayBuffer());

/**
 * Posts one error event to the relay's tunnel path with `fields` over the suite's own: the healthy traffic's events a
 * filter drops (ChunkLoadError) and whose message scrubbing rewrites (an email address), for the firewall's panels.
 */
export const postEvent = (relayUrl: string, dsn: string, fields: Record<string, unknown>) => {
  const eventId = newEventId();
  const event = { event_id: eventId, timestamp: Date.now() / 1000, platform: 'javascript', level: 'error', ...fields };
  return fetch(`${relayUrl}${tunnelPathOf(dsn)}`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain;charset=UTF-8' },
    body: `${JSON.stringify({ event_id: eventId, dsn })}\n{"type":"event"}\n${JSON.stringify(event)}\n`,
  }).then((response) => response.arrayBuffer());
};

/** Takes every in-flight slot of the web pod with actions whose bodies never come; the function releases them. */
export async function holdInFlight(webUrl: string): Promise<() => void> {
  const { hostname, port } = new URL(webUrl);
  const sockets: Socket[] = [];
  for (let n = 0; n < SHED_MAX_IN_FLIGHT; n++) {
    const socket = connect(Number(port), hostname);
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /preferences HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
        'Content-Length: 1000\r\n\r\npageSize=',
    );
    sockets.push(socket);
  }
  return () => {
    for (const socket of sockets) socket.destroy();
  };
}
