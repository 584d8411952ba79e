// The whole relay over loopback HTTP against a capture upstream: forwarding, refusals, rate limits and outages.
import { readdirSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  attachmentItem,
  type CaptureServer,
  closeAfterTest,
  closeOpened,
  EVENT_ID,
  envelope,
  errorEvent,
  eventItem,
  eventually,
  freePort,
  post,
  postWhole,
  tempDir,
  timeBlock,
  watchEventLoop,
} from '@app/test-kit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Dsn, envelopeEndpoint, parseDsn } from '../src/envelope/dsn.ts';
import { openSpool } from '../src/spool/spool.ts';
import { leaseDue, readSpooledBody } from './spool/read-back.ts';
import { type RunningRelay, startRelay, withRelay } from './with-relay.ts';

/** A second allowed project, for tests that must not see the first one's rate limits. */
const SECOND = { projectId: '7', publicKey: 'def' };
const under = withRelay((upstream) => ({
  ALLOWED_DSNS: `${upstream.dsn},${upstream.capture.dsn(SECOND)}`,
  SPOOL_MODE: 'durable',
  RETRY_BASE_MS: '50',
  RETRY_MAX_MS: '200',
  CLIENT_REPORT_INTERVAL_MS: '100',
}));
let capture: CaptureServer;
let relay: RunningRelay;
let dsn: string;
let dsn2: string;
beforeAll(() => {
  ({ capture, relay, dsn } = under);
  dsn2 = capture.dsn(SECOND);
});
afterEach(async () => {
  await closeOpened(); // before the capture is reset: a relay closing may still deliver
  capture.setBehaviour({ kind: 'accept' });
  capture.clear();
});

const metric = async (name: string) => {
  const text = await (await fetch(`${relay.url}/metrics`)).text();
  return text.split('\n').filter((line) => line.startsWith(name));
};

describe('accepting and forwarding', () => {
  it('forwards an envelope byte for byte with the client identity, and answers with the event id', async () => {
    const body = envelope({ event_id: EVENT_ID, dsn, sent_at: '2026-11-22T01:00:00.000Z', extra: { k: 1 } }, [
      eventItem(),
      attachmentItem(Buffer.from([0, 10, 13, 255, 10])),
      { header: { type: 'something_new', x: 1 }, payload: 'kept' },
    ]);
    const response = await post(`${relay.tunnel}/`, body, {
      'user-agent': 'Mozilla/5.0 test',
      origin: 'https://shop.example.com',
      cookie: 'session=secret',
      authorization: 'Bearer secret',
      'x-forwarded-for': '198.51.100.9',
    });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ id: EVENT_ID });
    const arrived = await capture.waitFor(() => true);
    expect(arrived.body.equals(body)).toBe(true);
    expect(arrived.projectId).toBe('42');
    expect(arrived.publicKey).toBe('abc');
    expect(arrived.requestHeaders).toMatchObject({
      'content-type': 'application/x-sentry-envelope',
      'x-sentry-forwarded-for': '127.0.0.1', // TRUSTED_PROXY_HOPS=0: the client's X-Forwarded-For is not believed
      'user-agent': 'Mozilla/5.0 test',
      origin: 'https://shop.example.com',
    });
    expect(arrived.requestHeaders.cookie).toBeUndefined();
    expect(arrived.requestHeaders.authorization).toBeUndefined();
  });

  it.each([
    ['application/x-sentry-envelope', { 'content-type': 'application/x-sentry-envelope' }],
    ['no content type', {}],
    ['an empty content type', { 'content-type': '' }],
    ['gzip', { 'content-encoding': 'gzip' }],
  ])('accepts %s', async (_name, headers: Record<string, string>) => {
    const body = envelope({ dsn }, [{ header: { type: 'session' }, payload: '{"sid":"s1"}' }]);
    const encoded = headers['content-encoding'] === 'gzip' ? gzipSync(body) : body;
    const response = await fetch(relay.tunnel, { method: 'POST', body: encoded, headers });
    expect([response.status, await response.json()]).toEqual([200, {}]);
    expect((await capture.waitFor(() => true)).body.equals(body)).toBe(true);
  });

  it('drops an ignored error, says so in a client report, and keeps the rest of the envelope', async () => {
    const body = envelope({ event_id: EVENT_ID, dsn }, [
      eventItem(errorEvent('Script error.', 'Error')),
      attachmentItem(Buffer.alloc(10)),
      { header: { type: 'session' }, payload: '{"sid":"s2"}' },
    ]);
    expect((await post(relay.tunnel, body)).json).toEqual({ id: EVENT_ID });
    const arrived = await capture.waitFor(() => true);
    expect(arrived.items.map((i) => i.type)).toEqual(['session', 'client_report']);
    expect(arrived.items[1]?.json).toMatchObject({
      discarded_events: [
        { reason: 'filtered', category: 'error', quantity: 1 },
        { reason: 'filtered', category: 'attachment', quantity: 10 },
        { reason: 'filtered', category: 'attachment_item', quantity: 1 },
      ],
    });
    expect(await metric('relay_items_dropped_total{reason="cross-origin-script-error",type="event"}')).toHaveLength(1);
  });

  it('answers 200 without forwarding when nothing is left, and reports the outcome later in one client report', async () => {
    for (let i = 0; i < 3; i++) {
      const body = envelope({ event_id: EVENT_ID, dsn }, [eventItem(errorEvent('ResizeObserver loop limit exceeded'))]);
      expect(await post(relay.tunnel, body)).toMatchObject({ status: 200, json: { id: EVENT_ID } });
    }
    type Report = { discarded_events: Array<{ reason: string; category: string; quantity: number }> };
    const reported = () =>
      capture
        .items('client_report')
        .flatMap((item) => (item.json as Report).discarded_events)
        .reduce(
          (sum, outcome) =>
            sum + (outcome.reason === 'filtered' && outcome.category === 'error' ? outcome.quantity : 0),
          0,
        );
    await eventually(() => reported() === 3, 5000, 'client reports for 3 events');
    expect(capture.items('event')).toHaveLength(0);
    expect(capture.envelopes.length).toBeLessThan(3); // batched, not one request per dropped event
    await new Promise((resolve) => setTimeout(resolve, 200)); // nothing more is on its way
    expect(reported()).toBe(3);
  });
});

describe('refusals', () => {
  it.each([
    [
      'a foreign DSN',
      () => envelope({ dsn: 'https://abc@evil.example.com/42' }, [eventItem()]),
      403,
      'dsn_not_allowed',
    ],
    [
      'a foreign project',
      () => envelope({ dsn: capture.dsn({ projectId: '43', publicKey: 'abc' }) }, [eventItem()]),
      403,
      'dsn_not_allowed',
    ],
    ['a missing DSN', () => envelope({ event_id: EVENT_ID }, [eventItem()]), 400, 'missing_dsn'],
    [
      'a malformed envelope',
      () => Buffer.from(`{"dsn":"${dsn}"}\n{"type":"attachment","length":99}\nshort`),
      400,
      'malformed',
    ],
    ['an empty body', () => Buffer.alloc(0), 400, 'empty'],
    [
      'an oversized event item',
      () => envelope({ dsn }, [eventItem({ message: 'x'.repeat(1_100_000) })]),
      413,
      'too_large',
    ],
  ])('%s → refused, nothing forwarded', async (_name, body, status, code) => {
    const response = await post(relay.tunnel, body());
    expect(response.status).toBe(status);
    expect(response.json).toEqual({ error: code, detail: expect.any(String) });
    expect(response.headers.get('retry-after')).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(capture.requestCount()).toBe(0);
  });

  it('refuses an oversized body, a gzip bomb and an unknown encoding, and stays healthy', async () => {
    const big = Buffer.alloc(21 * 1024 * 1024, 0x61);
    expect((await post(relay.tunnel, big)).status).toBe(413);
    const bomb = gzipSync(Buffer.concat([envelope({ dsn }, []), Buffer.from('\n'), Buffer.alloc(100 * 1024 * 1024)]));
    const response = await post(relay.tunnel, bomb, { 'content-encoding': 'gzip' });
    expect(response).toMatchObject({
      status: 413,
      json: { error: 'too_large', detail: expect.stringMatching(/decompresses to more than 100 times/) },
    });
    expect((await post(relay.tunnel, 'x', { 'content-encoding': 'compress' })).status).toBe(415);
    expect((await fetch(`${relay.url}/readyz`)).status).toBe(200);
  });

  it('answers a slow body with 408 and stays healthy', async () => {
    const slow = await under.relayWith({ BODY_TIMEOUT_MS: '200' });
    const port = new URL(slow.url).port;
    const socket = connect(Number(port), '127.0.0.1');
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
      });
      socket.on('close', () => resolve(text));
    });
    socket.write(`POST /monitoring HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"dsn":`);
    expect(await answer).toMatch(/^HTTP\/1.1 408[\s\S]*"error":"body_timeout"/);
    expect((await fetch(`${slow.url}/healthz`)).status).toBe(200);
  });
});

describe('upstream rate limits', () => {
  it('passes a 429 through, then enforces it locally without calling upstream', async () => {
    capture.setBehaviour({ kind: 'rate-limit', retryAfterSeconds: 30, limits: '30:error:key:quota' });
    const body = envelope({ event_id: EVENT_ID, dsn }, [eventItem()]);
    expect((await post(relay.tunnel, body)).status).toBe(200); // accepted before upstream answered
    await eventually(
      async () => (await metric('relay_rate_limits_active')).some((l) => l.endsWith(' 1')),
      5000,
      'a limit',
    );
    const requests = capture.requestCount();
    const limited = await post(relay.tunnel, body);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-sentry-rate-limits')).toMatch(/^(30|29):error:key:quota$/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(25);
    // sessions are not limited: they go, and the SDK hears about the error limit
    capture.setBehaviour({ kind: 'accept' });
    const mixed = await post(
      relay.tunnel,
      envelope({ dsn }, [eventItem(), { header: { type: 'session' }, payload: '{}' }]),
    );
    expect(mixed.status).toBe(200);
    expect(mixed.headers.get('x-sentry-rate-limits')).toMatch(/:error:key:quota$/);
    const arrived = await capture.waitFor(() => true);
    expect(capture.requestCount()).toBe(requests + 1);
    expect(arrived.items.map((i) => i.type)).toEqual(['session', 'client_report']);
    expect(arrived.items[1]?.json).toMatchObject({
      discarded_events: [{ reason: 'ratelimit_backoff', category: 'error', quantity: 1 }],
    });
  });
});

describe('outage', () => {
  it('spools while upstream fails and delivers every accepted envelope once it is back', async () => {
    capture.setBehaviour({ kind: 'fail', status: 503 });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const id = i.toString(16).padStart(32, '0');
      ids.push(id);
      const response = await post(relay.tunnel, envelope({ event_id: id, dsn: dsn2 }, [eventItem()]));
      expect(response.status).toBe(200);
      if (i === 10) capture.setBehaviour({ kind: 'drop' }); // network errors too
    }
    await eventually(
      async () => (await metric('relay_spool_envelopes')).some((l) => / [1-9]\d*$/.test(l)),
      5000,
      'spooling',
    );
    capture.setBehaviour({ kind: 'accept' });
    await eventually(() => new Set(capture.envelopes.map((e) => e.header.event_id)).size === 30, 10_000, 'all 30');
    expect(new Set(capture.envelopes.map((e) => e.header.event_id))).toEqual(new Set(ids));
    await eventually(
      async () => (await metric('relay_spool_envelopes')).some((l) => l.endsWith(' 0')),
      5000,
      'empty spool',
    );
  });

  it('moves sent_at forward by the time an envelope was held, and keeps every other byte', async () => {
    // An envelope accepted two hours ago and still in the spool (as after a long outage), replayed at start.
    const dir = tempDir();
    const heldMs = 2 * 3600_000;
    const acceptedAt = Date.now() - heldMs;
    const sentAt = new Date(acceptedAt - 150).toISOString();
    const id = 'ab'.repeat(16);
    const body = Buffer.from(envelope({ event_id: id, dsn, sent_at: sentAt }, [eventItem()]));
    const target = parseDsn(dsn) as Dsn;
    const spool = openSpool({ dir, sync: 'normal' });
    spool.insert([
      {
        entry: {
          url: envelopeEndpoint(target),
          dsnKey: target.key,
          project: '42',
          headers: {},
          body,
          acceptedAt,
          attempts: 3,
        },
        leased: false,
        nextAttemptAt: 0,
      },
    ]);
    spool.close();
    await under.relayWith({ SPOOL_DIR: dir }); // replays the spool it finds
    await eventually(() => capture.envelopes.some((e) => e.header.event_id === id), 5000, 'the replay');
    const arrived = capture.envelopes.find((e) => e.header.event_id === id);
    const shifted = Date.parse(String(arrived?.header.sent_at));
    expect(Math.abs(shifted - (Date.parse(sentAt) + heldMs))).toBeLessThan(60_000);
    expect(Date.now() - shifted).toBeLessThan(60_000); // as if sent just now, so Sentry corrects no clock
    const original = body.toString();
    expect(arrived?.body.toString()).toBe(original.replace(sentAt, String(arrived?.header.sent_at)));
  });

  it('refuses with 503 + a short Retry-After when the spool is full, rather than dropping, and tells no SDK to stop', async () => {
    const small = closeAfterTest(
      await startRelay({
        ALLOWED_DSNS: dsn,
        SPOOL_MAX_ENVELOPES: '3',
        SPOOL_PER_CLIENT_ENVELOPES: '3',
        RETRY_BASE_MS: '10000',
      }),
    );
    capture.setBehaviour({ kind: 'fail', status: 500 });
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof post>> | undefined;
    for (let i = 0; i < 5; i++) {
      last = await post(small.tunnel, envelope({ dsn }, [eventItem()]));
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 503, 503]);
    expect(last?.json).toMatchObject({ error: 'spool_full' });
    expect(last?.headers.get('retry-after')).toBe('5');
    expect(last?.headers.get('x-sentry-rate-limits')).toBeNull();
  });
});

describe('large envelopes (bodies in their own files)', () => {
  it('durable mode: spools 10 MiB envelopes with 100 attachments to files without stalling the event loop, then replays them', async () => {
    const attachments = Array.from({ length: 100 }, (_, i) =>
      attachmentItem(Buffer.alloc(104_857, i), `shot-${i}.png`),
    );
    const ids = [EVENT_ID, EVENT_ID.replace(/^9/, 'a'), EVENT_ID.replace(/^9/, 'b')];
    const bodies = ids.map((event_id) => envelope({ event_id, dsn: dsn2 }, [eventItem(), ...attachments]));
    const bodyDir = join(relay.config.spool.dir, 'bodies');
    // They stay in the spool after their first attempt; dropped unread, so the in-process capture server does not
    // buffer 10 MiB on this thread while the relay is watched.
    capture.setBehaviour({ kind: 'drop' });
    const accepted = [];
    for (const body of bodies) accepted.push(await watchEventLoop(() => postWhole(relay.tunnel, body)));
    expect(accepted.map((a) => a.result)).toEqual([200, 200, 200]);
    expect(readdirSync(bodyDir)).toHaveLength(3); // on disk, each in its own file, before the 200
    await eventually(() => capture.requestCount() > 0, 5000, 'the first attempt');

    capture.setBehaviour({ kind: 'accept' });
    const replayed = await watchEventLoop(() =>
      Promise.all(ids.map((id) => capture.waitFor((e) => e.header.event_id === id, 10_000))),
    );
    expect(replayed.result.map((e) => e.body.equals(bodies[ids.indexOf(String(e.header.event_id))] as Buffer))).toEqual(
      [true, true, true],
    );
    await eventually(() => readdirSync(bodyDir).length === 0, 5000, 'the body files to be deleted');

    // The block the relay avoids: the same body committed to a spool row at once, as bodies up to 64 KiB are.
    const inline = openSpool({ dir: tempDir(), sync: 'normal' });
    const entry = { url: 'http://x/api/7/envelope/', dsnKey: 'def', project: '7', headers: {}, attempts: 0 };
    const rowBlocks = [0, 1, 2].map(() =>
      timeBlock(() =>
        inline.insert([
          { entry: { ...entry, body: bodies[0] as Buffer, acceptedAt: Date.now() }, leased: false, nextAttemptAt: 0 },
        ]),
      ),
    );
    inline.close();
    const [best, row] = [Math.min(...accepted.map((a) => a.maxBlockMs)), Math.min(...rowBlocks)];
    console.log(
      `10 MiB durable envelopes: longest event-loop block ${accepted.map((a) => a.maxBlockMs.toFixed(1)).join(', ')} ms while accepting and spooling, ${replayed.maxBlockMs.toFixed(1)} ms while replaying (capture server in this process); one synchronous row insert of the body ${row.toFixed(1)} ms`,
    );
    // The figure against issue 3's 20 ms is the bench's; here, the best of three acceptances against that baseline.
    expect(best).toBeLessThan(row);
  });

  it('fast mode: a large envelope still in flight at shutdown is spooled to a file', async () => {
    const fast = await startRelay({ ALLOWED_DSNS: dsn, SPOOL_MODE: 'fast', SHUTDOWN_GRACE_MS: '600' });
    const body = envelope({ event_id: EVENT_ID, dsn }, [eventItem(), attachmentItem(Buffer.alloc(300_000, 1))]);
    capture.setBehaviour({ kind: 'stall' });
    expect((await post(fast.tunnel, body)).status).toBe(200);
    await eventually(() => capture.requestCount() > 0, 5000, 'the send');
    await fast.close(); // waits 300 ms for the stalled send, then spools it
    const spool = openSpool({ dir: fast.config.spool.dir, sync: 'normal' });
    try {
      expect([spool.count, spool.bytes]).toEqual([1, body.length]);
      const [row] = leaseDue(spool, Date.now(), 1);
      expect(row?.bodyFile).toBeDefined();
      expect((await readSpooledBody(spool, row)).equals(body)).toBe(true);
    } finally {
      spool.close();
    }
  });

  it('drops and counts a spooled envelope whose body file disappeared, and goes on', async () => {
    const lossy = await under.relayWith({ RETRY_BASE_MS: '300', RETRY_MAX_MS: '300' });
    const bodies = join(lossy.config.spool.dir, 'bodies');
    capture.setBehaviour({ kind: 'fail', status: 503 });
    const body = envelope({ dsn }, [eventItem(), attachmentItem(Buffer.alloc(100_000))]);
    expect((await post(lossy.tunnel, body)).status).toBe(200);
    await eventually(() => capture.requestCount() > 0, 5000, 'the first attempt');
    for (const name of readdirSync(bodies)) unlinkSync(join(bodies, name));
    capture.setBehaviour({ kind: 'accept' });
    const scrape = async () => (await (await fetch(`${lossy.url}/metrics`)).text()).split('\n');
    await eventually(
      async () => (await scrape()).includes('relay_envelopes_dropped_total{reason="lost"} 1'),
      5000,
      'the lost envelope to be counted',
    );
    expect(await scrape()).toContain('relay_spool_envelopes 0');
    expect((await post(lossy.tunnel, envelope({ dsn }, [eventItem()]))).status).toBe(200);
    await capture.waitFor(() => true);
  });
});

describe('operations', () => {
  it('serves metrics with bounded labels', async () => {
    await post(relay.tunnel, envelope({ dsn }, [eventItem()]));
    await post(relay.tunnel, envelope({ dsn: 'https://x@evil.example.com/1' }, [eventItem()]));
    const text = await (await fetch(`${relay.url}/metrics`)).text();
    expect(text).toMatch(/relay_envelopes_accepted_total\{project="42"\} \d+/);
    expect(text).toMatch(/relay_envelopes_rejected_total\{reason="dsn_not_allowed"\} \d+/);
    expect(text).toMatch(/relay_upstream_request_duration_seconds_bucket/);
    expect(text).toMatch(/nodejs_eventloop_lag_seconds/);
    expect(text).not.toMatch(/evil/);
    expect(text).toContain(`relay_build_info{version="dev",revision="unknown",node_version="${process.version}"} 1`);
  });

  it('counts every envelope once across scrapes (the per-envelope counters are added at collection)', async () => {
    // The shared relay may hold rate limits from other tests.
    const own = await under.relayWith();
    const names = [
      'relay_envelopes_received_total',
      'relay_envelopes_accepted_total{project="42"}',
      'relay_envelopes_forwarded_total{project="42"}',
      'relay_upstream_requests_total{outcome="delivered",status="200"}',
    ];
    const counts = async () => {
      const lines = (await (await fetch(`${own.url}/metrics`)).text()).split('\n');
      return names.map((name) => Number(lines.find((line) => line.startsWith(`${name} `))?.split(' ')[1] ?? 0));
    };
    for (let i = 0; i < 3; i++) expect((await post(own.tunnel, envelope({ dsn }, [eventItem()]))).status).toBe(200);
    await expect.poll(counts, { timeout: 10_000 }).toEqual([3, 3, 3, 3]);
    expect(await counts()).toEqual([3, 3, 3, 3]); // a second scrape adds nothing already added
  });

  it('serves metrics only on METRICS_PORT when it is set', async () => {
    const port = await freePort();
    const admin = await under.relayWith({ METRICS_PORT: String(port) });
    expect((await fetch(`${admin.url}/metrics`)).status).toBe(404);
    const scraped = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toMatch(/relay_envelopes_received_total/);
    expect((await fetch(`http://127.0.0.1:${port}/monitoring`)).status).toBe(404);
  });

  it('forwards over pipelined connections when UPSTREAM_PIPELINING is set', async () => {
    const piped = closeAfterTest(
      await startRelay({ ALLOWED_DSNS: dsn, UPSTREAM_PIPELINING: '4', UPSTREAM_CONCURRENCY: '8' }),
    );
    const ids = Array.from({ length: 40 }, (_, i) => i.toString(16).padStart(32, 'a'));
    const answers = await Promise.all(
      ids.map((id) => post(piped.tunnel, envelope({ event_id: id, dsn }, [eventItem()]))),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    await eventually(() => ids.every((id) => capture.envelopes.some((e) => e.header.event_id === id)), 5000, 'all 40');
  });

  it('believes X-Forwarded-For only for the trusted hops', async () => {
    const proxied = await under.relayWith({ TRUSTED_PROXY_HOPS: '1' });
    await post(proxied.tunnel, envelope({ dsn }, [eventItem()]), { 'x-forwarded-for': '10.9.9.9, 203.0.113.5' });
    const arrived = await capture.waitFor(() => true);
    expect(arrived.requestHeaders['x-sentry-forwarded-for']).toBe('203.0.113.5');
  });
});
