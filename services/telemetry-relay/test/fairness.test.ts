// Fairness by network over real HTTP: the addresses of one IPv6 /64 share one memory share and one spool share,
// and a client filling its spool share leaves room (and a 200) for everybody else. Unit tables:
// memory/client-shares.test.ts, service-kit's client.test.ts.
import { request } from 'node:http';
import { attachmentItem, type CaptureServer, envelope, eventItem, eventually, post } from '@app/test-kit';
import { beforeAll, describe, expect, it } from 'vitest';
import { withUpstream } from './with-relay.ts';

const MiB = 1024 * 1024;
const upstream = withUpstream();
const { relayWith } = upstream;
let capture: CaptureServer;
let dsn: string;
beforeAll(() => ({ capture, dsn } = upstream));

const eventId = (n: number) => n.toString(16).padStart(32, '0');
const from = (address: string) => ({ 'x-forwarded-for': address });

describe('memory shares by network', () => {
  it('four addresses of one IPv6 /64 share one share: the fourth is asked to wait, another /64 is not', async () => {
    // hostile.test.ts's budget test with twice the budget: alike in shape on purpose, each test's limits in view.
    const relay = await relayWith({
      MAX_ENVELOPE_BYTES: String(4 * MiB),
      MEMORY_BUDGET_BYTES: String(16 * MiB),
      MEMORY_PER_CLIENT_BYTES: String(5 * MiB),
      TRUSTED_PROXY_HOPS: '1',
    });
    const head = Buffer.from(`${JSON.stringify({ dsn })}\n{"type":"attachment","length":${4 * MiB - 200}}\n`);
    // Three addresses of 2001:db8:0:7::/64 each hold 1.5 MiB of a body they never finish.
    const stalled = [1, 2, 3].map((n) => {
      const req = request(relay.tunnel, {
        method: 'POST',
        headers: { 'content-length': String(4 * MiB), ...from(`2001:db8:0:7::${n}`) },
      });
      req.on('error', () => {});
      req.write(Buffer.concat([head, Buffer.alloc(1.5 * MiB - head.length)]));
      return req;
    });
    await eventually(async () => {
      const metrics = await (await fetch(`${relay.url}/metrics`)).text();
      return /^relay_memory_held_bytes (\d+)$/m.exec(metrics)?.[1] === String(4.5 * MiB);
    });
    const whole = envelope({ dsn, event_id: eventId(1) }, [eventItem(), attachmentItem(Buffer.alloc(MiB))]);
    const fourth = await post(relay.tunnel, whole, from('2001:db8:0:7:ffff:ffff:ffff:4'));
    expect([fourth.status, fourth.json.error, fourth.headers.get('retry-after')]).toEqual([
      429,
      'client_overloaded',
      '5',
    ]);
    const neighbour = await post(relay.tunnel, whole, from('2001:db8:0:8::1'));
    expect(neighbour.status).toBe(200);
    for (const req of stalled) req.destroy();
  });
});

describe('spool shares by network', () => {
  it('a client filling its share of the spool gets 429; other clients still get 200, and all of it is delivered', async () => {
    const relay = await relayWith({
      TRUSTED_PROXY_HOPS: '1',
      SPOOL_MAX_ENVELOPES: '100',
      SPOOL_PER_CLIENT_ENVELOPES: '3',
      RETRY_BASE_MS: '50',
      RETRY_MAX_MS: '200',
    });
    capture.clear();
    capture.setBehaviour({ kind: 'fail', status: 503 });
    const send = (n: number, address: string) =>
      post(relay.tunnel, envelope({ dsn, event_id: eventId(n) }, [eventItem()]), from(address));

    // One network (addresses of one /64) tries to fill the spool while upstream is down.
    const filler = [];
    for (let n = 0; n < 6; n++) filler.push(await send(100 + n, `2001:db8:0:9::${n + 1}`));
    expect(filler.map(({ status }) => status)).toEqual([200, 200, 200, 429, 429, 429]);
    const refused = filler[5];
    expect(refused?.json.error).toBe('client_spool_full');
    expect(refused?.headers.get('retry-after')).toBe('30');
    expect(refused?.headers.get('x-sentry-rate-limits')).toBeNull();

    // Everybody else is still taken.
    const others = [];
    for (let n = 0; n < 6; n++) others.push(await send(200 + n, `198.51.100.${n + 1}`));
    expect(others.map(({ status }) => status)).toEqual([200, 200, 200, 200, 200, 200]);

    capture.setBehaviour({ kind: 'accept' });
    const accepted = [100, 101, 102, 200, 201, 202, 203, 204, 205].map(eventId);
    await eventually(
      () => accepted.every((id) => capture.envelopes.some((e) => e.header.event_id === id)),
      10_000,
      'every envelope answered 200 upstream',
    );
    // Delivered, the share is free again.
    expect((await send(106, '2001:db8:0:9::99')).status).toBe(200);
  });
});
