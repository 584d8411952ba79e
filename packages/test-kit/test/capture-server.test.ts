// The local capture server that stands in for Sentry's hosted intake: what it accepts, stores and answers.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CaptureServer, startCaptureServer } from '../src/index.ts';

const attachment = Buffer.from([0x00, 0x0a, 0xff, 0x0a]);
const envelope = Buffer.concat([
  Buffer.from('{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc","dsn":"http://key1@127.0.0.1/1"}\n'),
  Buffer.from('{"type":"event"}\n{"message":"hello"}\n'),
  Buffer.from(`{"type":"attachment","length":${attachment.length},"filename":"a.bin"}\n`),
  attachment,
  Buffer.from('\n{"type":"client_report"}\n{"discarded_events":[]}'),
]);

let capture: CaptureServer;
beforeEach(async () => {
  capture = await startCaptureServer({ control: true });
});
afterEach(async () => {
  await capture.close();
});

const post = (body: Buffer, headers: Record<string, string> = {}, project = '1') =>
  fetch(capture.envelopeUrl(project), { method: 'POST', body, headers });

describe('capture server', () => {
  it('records an envelope item by item, binary payloads byte for byte', async () => {
    const response = await post(envelope);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: '9ec79c33ec9942ab8353589fcb2e04dc' });
    const [captured] = capture.envelopes;
    expect(captured?.projectId).toBe('1');
    expect(captured?.publicKey).toBe('key1');
    expect(captured?.items.map((i) => i.type)).toEqual(['event', 'attachment', 'client_report']);
    expect(captured?.items[0]?.json).toEqual({ message: 'hello' });
    expect(captured?.items[1]?.payload.equals(attachment)).toBe(true);
    expect(captured?.body.equals(envelope)).toBe(true);
    expect(capture.items('event')).toHaveLength(1);
  });

  it('decodes gzip and takes the key from X-Sentry-Auth', async () => {
    await post(gzipSync(envelope), {
      'content-encoding': 'gzip',
      'x-sentry-auth': 'Sentry sentry_version=7, sentry_key=k2',
    });
    expect(capture.envelopes[0]?.publicKey).toBe('k2');
    expect(capture.envelopes[0]?.body.equals(envelope)).toBe(true);
  });

  it('fails, rate-limits and drops on demand without recording', async () => {
    capture.setBehaviour({ kind: 'fail', status: 503 });
    expect((await post(envelope)).status).toBe(503);
    capture.setBehaviour({ kind: 'rate-limit', retryAfterSeconds: 30, limits: '30:error:project' });
    const limited = await post(envelope);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('30');
    expect(limited.headers.get('x-sentry-rate-limits')).toBe('30:error:project');
    capture.setBehaviour({ kind: 'drop' });
    await expect(post(envelope)).rejects.toThrow();
    expect(capture.envelopes).toHaveLength(0);
    expect(capture.requestCount()).toBe(3);
  });

  it('stalls until told otherwise', async () => {
    capture.setBehaviour({ kind: 'stall' });
    const pending = post(envelope).then(
      (r) => r.status,
      () => 'connection closed',
    );
    const settled = await Promise.race([pending, new Promise((r) => setTimeout(() => r('still waiting'), 200))]);
    expect(settled).toBe('still waiting');
    capture.setBehaviour({ kind: 'accept' });
    expect(await pending).toBe('connection closed');
  });

  it('resolves waitFor for envelopes that arrive later', async () => {
    const waiting = capture.waitFor((e) => e.projectId === '7', 2000);
    await post(envelope, {}, '7');
    expect((await waiting).projectId).toBe('7');
    await expect(capture.waitFor((e) => e.projectId === '8', 50)).rejects.toThrow(/no matching envelope/);
  });

  it('serves the control API for containerized use', async () => {
    await post(envelope);
    const listed = (await (await fetch(`${capture.url}/__capture/envelopes`)).json()) as {
      requests: number;
      envelopes: Array<{ items: Array<{ type: string; json?: unknown; text?: string }> }>;
    };
    expect(listed.requests).toBe(1);
    expect(listed.envelopes[0]?.items[0]).toMatchObject({ type: 'event', json: { message: 'hello' } });
    await fetch(`${capture.url}/__capture/behaviour`, { method: 'PUT', body: '{"kind":"fail","status":502}' });
    expect((await post(envelope)).status).toBe(502);
    await fetch(`${capture.url}/__capture/envelopes`, { method: 'DELETE' });
    expect(capture.envelopes).toHaveLength(0);
  });

  it('reports large payloads by length and SHA-256, and summarizes a header it cannot write back', async () => {
    const large = Buffer.alloc(100 * 1024, 7);
    const deep = `{"type":"weird","x":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    await post(
      Buffer.concat([
        Buffer.from('{"dsn":"http://key1@127.0.0.1/1"}\n'),
        Buffer.from(`{"type":"attachment","length":${large.length}}\n`),
        large,
        Buffer.from(`\n${deep}\n{}`),
      ]),
    );
    const listed = (await (await fetch(`${capture.url}/__capture/envelopes`)).json()) as {
      envelopes: Array<{ items: Array<Record<string, unknown>> }>;
    };
    const [attachmentItem, weird] = listed.envelopes[0]?.items ?? [];
    expect(attachmentItem).toMatchObject({
      type: 'attachment',
      length: large.length,
      sha256: createHash('sha256').update(large).digest('hex'),
    });
    expect(attachmentItem?.text).toBeUndefined();
    expect(weird).toMatchObject({ type: 'weird', header: { type: 'weird', summarized: expect.any(String) } });
  });
});
