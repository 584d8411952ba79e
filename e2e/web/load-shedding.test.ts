// Refusals against the real process and the real Node SDK: a request shed with 503 is answered before Sentry's
// per-request wrapper, so even at a sample rate of 1 it makes no span and sends nothing upstream, while the requests
// served before and after are traced as usual. (Why: docs/decisions/008-load-shedding-and-liveness.md.)
import { connect, type Socket } from 'node:net';
import { type CapturedEnvelope, type CaptureServer, type ServiceProcess, startCaptureServer } from '@app/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWeb } from '../support/web.ts';

let capture: CaptureServer;
let web: ServiceProcess;

beforeAll(async () => {
  capture = await startCaptureServer();
  web = await startWeb({ SENTRY_DSN: capture.dsn(), SENTRY_TRACES_SAMPLE_RATE: '1', SHED_MAX_IN_FLIGHT: '1' });
});
afterAll(async () => {
  await web?.kill();
  await capture?.close();
});

/** The query strings (`url.query`) of the server spans received. */
const spanQueries = (envelopes: CapturedEnvelope[]) =>
  envelopes.flatMap((e) =>
    e.items
      .filter((item) => item.type === 'span')
      .flatMap((item) => (item.json as { items?: { attributes?: Record<string, { value?: unknown }> }[] }).items ?? [])
      .map((span) => String(span.attributes?.['url.query']?.value ?? '')),
  );

/** An action whose body never comes: in flight until its connection closes. */
async function holdOneInFlight(): Promise<Socket> {
  const { hostname, port } = new URL(web.url);
  const socket = connect(Number(port), hostname);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `POST /preferences HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
      'Content-Length: 1000\r\n\r\npageSize=',
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  return socket;
}

describe('refused requests (SHED_MAX_IN_FLIGHT=1, tracesSampleRate 1)', () => {
  it('are answered 503 with Retry-After and traced nowhere; the pages served around them are traced', async () => {
    expect((await fetch(`${web.url}/catalog?served=before`)).status).toBe(200);
    const held = await holdOneInFlight();
    const refused = await Promise.all(
      Array.from({ length: 20 }, async (_, n) => {
        const res = await fetch(`${web.url}/catalog?refused=${n}`);
        await res.arrayBuffer();
        return `${res.status} ${res.headers.get('retry-after')}`;
      }),
    );
    expect(new Set(refused)).toEqual(new Set(['503 5']));
    held.destroy();
    await expect.poll(async () => (await fetch(`${web.url}/catalog?served=after`)).status).toBe(200);

    // Spans are flushed every 5 s at the latest: wait for the last page's, then past the next flush.
    await capture.waitFor((e) => spanQueries([e]).some((query) => query.includes('served=after')), 15_000);
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const queries = spanQueries(capture.envelopes);
    expect(queries.filter((query) => query.includes('served='))).toEqual(
      expect.arrayContaining(['served=before', 'served=after']),
    );
    expect(queries.filter((query) => query.includes('refused='))).toEqual([]);
  }, 60_000);
});
