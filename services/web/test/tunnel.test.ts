import { type CaptureServer, startCaptureServer } from '@app/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp } from './helpers.ts';

const envelope = (dsn: string) =>
  `${JSON.stringify({ event_id: 'a'.repeat(32), dsn })}\n{"type":"event"}\n${JSON.stringify({ message: 'hello' })}`;

describe('tunnel forwarding (local runs without an ingress)', () => {
  let capture: CaptureServer;
  beforeAll(async () => {
    capture = await startCaptureServer();
  });
  afterAll(() => capture.close());

  it('forwards POST <TUNNEL_PATH> byte for byte and returns the upstream status', async () => {
    const { app } = await testApp({ TUNNEL_TARGET: capture.envelopeUrl('1') });
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
    await app.close();
  });

  it('refuses an envelope over 1 MiB with 413 and answers 502 when the target is down', async () => {
    const { app } = await testApp({ TUNNEL_TARGET: 'http://127.0.0.1:9/api/1/envelope/' });
    const big = await app.inject({ method: 'POST', url: '/monitoring', payload: 'x'.repeat(1024 * 1024 + 1) });
    expect(big.statusCode).toBe(413);
    const down = await app.inject({ method: 'POST', url: '/monitoring', payload: envelope(capture.dsn()) });
    expect(down.statusCode).toBe(502);
    expect(down.body).toBe('telemetry relay unreachable');
    await app.close();
  });

  it('is not served without TUNNEL_TARGET (the ingress routes the path in Kubernetes)', async () => {
    const { app } = await testApp();
    const res = await app.inject({ method: 'POST', url: '/monitoring', payload: 'x' });
    expect(res.statusCode).not.toBe(200);
    await app.close();
  });
});

describe('HEAD and assets', () => {
  it('answers HEAD for a page with the document headers and no body', async () => {
    const { app } = await testApp();
    const res = await app.inject({ method: 'HEAD', url: '/catalog' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toBe('');
    await app.close();
  });
});
