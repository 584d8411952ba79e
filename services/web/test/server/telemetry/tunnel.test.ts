// The web's tunnel proxy for local runs (envelopes streamed byte for byte, within the relay's limit), and HEAD.
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CaptureServer, startCaptureServer } from '@app/test-kit';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { TUNNEL_BODY_LIMIT } from '../../../src/server/telemetry/tunnel-proxy.ts';
import { appForTest } from '../../with-web.ts';

const envelope = (dsn: string) =>
  `${JSON.stringify({ event_id: 'a'.repeat(32), dsn })}\n{"type":"event"}\n${JSON.stringify({ message: 'hello' })}`;

describe('tunnel forwarding (local runs without an ingress)', () => {
  let capture: CaptureServer;
  beforeAll(async () => {
    capture = await startCaptureServer();
  });
  afterAll(() => capture.close());

  it('forwards POST <TUNNEL_PATH> byte for byte and returns the upstream status', async () => {
    const { app } = await appForTest({ TUNNEL_PATH: '/monitoring', TUNNEL_TARGET: capture.envelopeUrl('1') });
    const body = envelope(capture.dsn());
    const res = await app.inject({
      method: 'POST',
      url: '/monitoring',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      payload: body,
    });
    expect(res.statusCode).toBe(200);
    const received = await capture.waitFor((e) => e.header.event_id === 'a'.repeat(32), 5_000);
    expect(received.body.toString()).toBe(body);
    expect(received.requestHeaders['x-forwarded-for']).toBe('127.0.0.1');
  });

  // Fastify's request.ip takes any text at the trusted hop; the relay keys shares on the address and sends it on.
  it.each([
    { case: 'the hop the edge appended', forwarded: '203.0.113.9, 198.51.100.7', seen: '198.51.100.7' },
    { case: 'IPv4-mapped IPv6', forwarded: '::ffff:198.51.100.7', seen: '198.51.100.7' },
    { case: 'no IP address: the peer', forwarded: '198.51.100.7, not-an-address', seen: '127.0.0.1' },
    { case: 'a zone: the peer', forwarded: 'fe80::1%eth0', seen: '127.0.0.1' },
    { case: 'a host name: the peer', forwarded: 'relay.example', seen: '127.0.0.1' },
  ])('tells the relay the client by service-kit rule, one trusted hop: $case', async ({ forwarded, seen }) => {
    const { app } = await appForTest({
      TUNNEL_PATH: '/monitoring',
      TUNNEL_TARGET: capture.envelopeUrl('1'),
      TRUSTED_PROXY_HOPS: '1',
    });
    const eventId = Buffer.from(forwarded).toString('hex').padEnd(32, '0').slice(0, 32);
    const body = `${JSON.stringify({ event_id: eventId, dsn: capture.dsn() })}\n{"type":"event"}\n{}`;
    const res = await app.inject({
      method: 'POST',
      url: '/monitoring',
      headers: { 'content-type': 'text/plain;charset=UTF-8', 'x-forwarded-for': forwarded },
      payload: body,
    });
    expect(res.statusCode).toBe(200);
    const received = await capture.waitFor((e) => e.header.event_id === eventId, 5_000);
    expect(received.requestHeaders['x-forwarded-for']).toBe(seen);
  });

  it('streams an envelope the relay would take (a 2 MiB replay) byte for byte, past the old 1 MiB cap', async () => {
    const { app } = await appForTest({ TUNNEL_PATH: '/monitoring', TUNNEL_TARGET: capture.envelopeUrl('1') });
    const header = JSON.stringify({ event_id: 'b'.repeat(32), dsn: capture.dsn() });
    const recording = 'r'.repeat(2 * 1024 * 1024);
    const body = `${header}\n{"type":"replay_recording","length":${recording.length}}\n${recording}`;
    const res = await app.inject({ method: 'POST', url: '/monitoring', payload: body });
    expect(res.statusCode).toBe(200);
    const received = await capture.waitFor((e) => e.header.event_id === 'b'.repeat(32), 5_000);
    expect(received.body.equals(Buffer.from(body))).toBe(true);
  });

  it('starts sending to the relay before the body has fully arrived (streamed, not buffered)', async () => {
    const seen: { url: string | undefined; bytes: number } = { url: undefined, bytes: 0 };
    const relay = createServer((req, res) => {
      seen.url = req.url;
      req.on('data', (chunk: Buffer) => {
        seen.bytes += chunk.length;
      });
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    onTestFinished(() => void relay.close());
    relay.listen(0, '127.0.0.1');
    await once(relay, 'listening');
    const { port } = relay.address() as AddressInfo;
    const { app } = await appForTest({ TUNNEL_PATH: '/monitoring', TUNNEL_TARGET: `http://127.0.0.1:${port}` });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port: webPort } = app.server.address() as AddressInfo;
    const request = httpRequest({
      port: webPort,
      host: '127.0.0.1',
      method: 'POST',
      path: '/monitoring/r?k=eA',
      headers: { 'content-type': 'application/csp-report', 'content-length': 2 * 65_536 },
    });
    request.write('a'.repeat(65_536));
    await vi.waitFor(() => expect(seen.bytes).toBe(65_536), { timeout: 5_000 });
    expect(seen.url).toBe('/monitoring/r?k=eA');
    request.end('a'.repeat(65_536));
    const [response] = (await once(request, 'response')) as [IncomingMessage];
    expect(response.statusCode).toBe(200);
    expect(seen.bytes).toBe(2 * 65_536);
  });

  it("refuses a body declared larger than the relay's 20 MiB with 413 and answers 502 when the target is down", async () => {
    const { app } = await appForTest({
      TUNNEL_PATH: '/monitoring',
      TUNNEL_TARGET: 'http://127.0.0.1:9/api/1/envelope/',
    });
    const big = await app.inject({
      method: 'POST',
      url: '/monitoring',
      headers: { 'content-length': String(TUNNEL_BODY_LIMIT + 1) },
      payload: 'x',
    });
    expect(big.statusCode).toBe(413);
    expect(big.body).toContain(String(TUNNEL_BODY_LIMIT));
    const down = await app.inject({ method: 'POST', url: '/monitoring', payload: envelope(capture.dsn()) });
    expect(down.statusCode).toBe(502);
    expect(down.body).toBe('telemetry relay unreachable');
  });

  it('is not served without TUNNEL_TARGET (the ingress routes the path in Kubernetes)', async () => {
    const { app } = await appForTest();
    const res = await app.inject({
      method: 'POST',
      url: '/monitoring',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      payload: envelope('https://key@o1.ingest.example/1'),
    });
    // The page route has it, and takes forms only.
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' });
  });
});

describe('HEAD and assets', () => {
  it('answers HEAD for a page with the document headers and no body', async () => {
    const { app } = await appForTest();
    const res = await app.inject({ method: 'HEAD', url: '/catalog' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toBe('');
  });

  it('serves a hashed asset cached for a year (HEAD: its headers, no body), and a missing one as a plain 404', async () => {
    const clientDir = mkdtempSync(join(tmpdir(), 'web-assets-'));
    onTestFinished(() => rmSync(clientDir, { recursive: true, force: true }));
    mkdirSync(join(clientDir, 'assets'));
    writeFileSync(join(clientDir, 'assets/entry-abc123.js'), 'export {};\n');
    const { app } = await appForTest({}, { clientDir });
    const head = await app.inject({ method: 'HEAD', url: '/assets/entry-abc123.js' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(head.headers['content-length']).toBe('11');
    expect(head.body).toBe('');
    const missing = await app.inject({ url: '/assets/missing-abc123.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).not.toMatch(/html/);
  });
});
