// Local quotas, the spike shield and the page token through the real relay on loopback, against a capture upstream,
// with the relay's clock held by the test (BuildOptions.now): answers, headers, client reports and metrics.
import { signPageToken } from '@app/service-kit/page-token';
import {
  type CaptureServer,
  closeAfterTest,
  closeOpened,
  envelope,
  errorEvent,
  eventItem,
  eventually,
  post,
  removeTempDirs,
  startCaptureServer,
} from '@app/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningRelay, startRelay } from '../../with-relay.ts';

const T0 = 1_800_000_000_000; // a window boundary for windows of whole minutes
let now = T0;
let capture: CaptureServer;
let dsn: string;

beforeAll(async () => {
  capture = await startCaptureServer();
  dsn = capture.dsn({ projectId: '42', publicKey: 'abc' });
});
afterEach(async () => {
  await closeOpened();
  capture.clear();
  capture.setBehaviour({ kind: 'accept' });
  now = T0;
});
afterAll(async () => {
  await capture.close();
  removeTempDirs();
});

const relayWith = async (env: Record<string, string>): Promise<RunningRelay> =>
  closeAfterTest(
    await startRelay(
      { ALLOWED_DSNS: dsn, SPOOL_MODE: 'fast', CLIENT_REPORT_INTERVAL_MS: '50', ...env },
      { now: () => now },
    ),
  );
const transaction = { header: { type: 'transaction' }, payload: JSON.stringify({ type: 'transaction', spans: [] }) };
const metric = async (relay: RunningRelay, line: string) => {
  const text = await (await fetch(`${relay.url}/metrics`)).text();
  return Number(
    text
      .split('\n')
      .find((l) => l.startsWith(line))
      ?.split(' ')[1] ?? 0,
  );
};
const reportOf = (reason: string) =>
  capture
    .items('client_report')
    .flatMap(
      (item) =>
        (item.json as { discarded_events: Array<{ reason: string; category: string; quantity: number }> })
          .discarded_events,
    )
    .filter((d) => d.reason === reason);

describe('a project quota', () => {
  it('answers 429 with the category scoped header while other categories pass, until the window ends', async () => {
    const relay = await relayWith({ QUOTA_ERRORS_PER_MINUTE: '2' });
    const mixed = () => envelope({ dsn }, [eventItem(), transaction]);
    for (let i = 0; i < 2; i++) {
      const ok = await post(relay.tunnel, mixed());
      expect([ok.status, ok.headers.get('x-sentry-rate-limits')]).toEqual([200, null]);
    }
    // The third error is over: the transaction still goes, and the SDK hears about errors only.
    const third = await post(relay.tunnel, mixed());
    expect(third.status).toBe(200);
    expect(third.headers.get('x-sentry-rate-limits')).toBe('60:error:project:project_quota');
    expect(third.headers.get('retry-after')).toBe('60');
    const arrived = await capture.waitFor((e) => e.items.some((i) => i.type === 'client_report'));
    expect(arrived.items.map((i) => i.type)).toEqual(['transaction', 'client_report']);
    expect(arrived.items[1]?.json).toMatchObject({
      discarded_events: [{ reason: 'quota', category: 'error', quantity: 1 }],
    });

    // Errors alone: refused as Sentry refuses them, the drop reported all the same.
    now += 15_000;
    const refused = await post(relay.tunnel, envelope({ dsn }, [eventItem(), eventItem()]));
    expect(refused.status).toBe(429);
    expect(refused.json.error).toBe('quota_exceeded');
    expect(refused.headers.get('x-sentry-rate-limits')).toBe('45:error:project:project_quota');
    expect(refused.headers.get('retry-after')).toBe('45');
    await eventually(() => reportOf('quota').reduce((sum, d) => sum + d.quantity, 0) === 3, 5000);
    expect((await post(relay.tunnel, envelope({ dsn }, [transaction]))).status).toBe(200);
    expect(await metric(relay, 'relay_quota_dropped_total{project="42",category="error",reason="quota"}')).toBe(3);
    expect(await metric(relay, 'relay_envelopes_rejected_total{reason="quota_exceeded"}')).toBe(1);

    now += 45_000; // the next window
    expect((await post(relay.tunnel, envelope({ dsn }, [eventItem()]))).status).toBe(200);
  });
});

describe('a network quota', () => {
  it('holds one client network and not another', async () => {
    const relay = await relayWith({ QUOTA_NETWORK_ITEMS_PER_MINUTE: '2', TRUSTED_PROXY_HOPS: '1' });
    const from = (address: string) =>
      post(relay.tunnel, envelope({ dsn }, [eventItem()]), { 'x-forwarded-for': address });
    expect((await from('2001:db8:0:1::1')).status).toBe(200);
    expect((await from('2001:db8:0:1::2')).status).toBe(200); // the same /64
    const over = await from('2001:db8:0:1::3');
    expect(over.status).toBe(429);
    expect(over.headers.get('x-sentry-rate-limits')).toBe('60::key:network_quota');
    expect((await from('2001:db8:0:2::1')).status).toBe(200);
    expect((await from('198.51.100.7')).status).toBe(200);
  });
});

describe('the spike shield', () => {
  it('keeps the threshold, then one in N of one fingerprint, and reports the rest', async () => {
    const relay = await relayWith({ SPIKE_SHIELD_THRESHOLD: '3', SPIKE_SHIELD_KEEP_ONE_IN: '4' });
    // One bug, ids differing: one fingerprint. Dropped envelopes are answered 200: sampling asks no SDK to back off.
    for (let i = 0; i < 11; i++) {
      const event = errorEvent(`order ${1000 + i} has no items`);
      const answer = await post(relay.tunnel, envelope({ dsn }, [eventItem(event)]));
      expect([answer.status, answer.headers.get('x-sentry-rate-limits')]).toEqual([200, null]);
    }
    const other = await post(relay.tunnel, envelope({ dsn }, [eventItem(errorEvent('another bug'))]));
    expect(other.status).toBe(200);
    // Kept: the first 3, then the 7th and the 11th (seen 4 past the threshold each time), and the other bug.
    await eventually(() => capture.items('event').length === 6, 5000);
    // Reported in the client reports sent now and then (CLIENT_REPORT_INTERVAL_MS), summed.
    await eventually(() => reportOf('spike_shield').reduce((sum, d) => sum + d.quantity, 0) === 6, 5000);
    expect(new Set(reportOf('spike_shield').map((d) => d.category))).toEqual(new Set(['error']));
    expect(await metric(relay, 'relay_quota_dropped_total{project="42",category="error",reason="spike_shield"}')).toBe(
      6,
    );
    expect(await metric(relay, 'relay_items_dropped_total{reason="spike_shield",type="event"}')).toBe(6);
  });
});

describe('the page token', () => {
  const SECRET = 'a-secret-the-web-and-relay-share-0123456789';
  const expiry = T0 / 1000 + 600;

  it.each([
    ['a token the web signed', 200, undefined, () => signPageToken(SECRET, 'abc', expiry)],
    ['an expired one (past the skew)', 403, 'page_token_expired', () => signPageToken(SECRET, 'abc', T0 / 1000 - 61)],
    ['one expired within the skew', 200, undefined, () => signPageToken(SECRET, 'abc', T0 / 1000 - 59)],
    [
      'a forged one',
      403,
      'page_token_invalid',
      () => signPageToken('another-secret-of-at-least-32-chars!!', 'abc', expiry),
    ],
    ['one signed for another key', 403, 'page_token_invalid', () => signPageToken(SECRET, 'def', expiry)],
    [
      'one with its expiry moved',
      403,
      'page_token_invalid',
      () => signPageToken(SECRET, 'abc', expiry).replace(/^\d+/, String(expiry + 3600)),
    ],
    ['not a token', 403, 'page_token_invalid', () => 'let-me-in'],
    ['none', 403, 'page_token_missing', () => undefined],
  ])('%s: %i', async (_name, status, error, token) => {
    const relay = await relayWith({ PAGE_TOKEN_SECRET: SECRET });
    const tokenText = token();
    const answer = await post(
      relay.tunnel,
      envelope({ dsn }, [eventItem()]),
      tokenText ? { 'x-page-token': tokenText } : {},
    );
    expect(answer.status).toBe(status);
    expect(answer.json.error).toBe(error);
    if (error) expect(answer.json.detail).toMatch(/x-page-token/);
  });

  it('takes it from the query too, where a beacon (which sends no headers) puts it', async () => {
    const relay = await relayWith({ PAGE_TOKEN_SECRET: SECRET });
    const body = envelope({ dsn }, [eventItem()]);
    const token = encodeURIComponent(signPageToken(SECRET, 'abc', expiry));
    expect((await post(`${relay.tunnel}?page_token=${token}`, body)).status).toBe(200);
    expect((await post(`${relay.tunnel}?page_token=1.x`, body)).json.error).toBe('page_token_invalid');
  });

  it('does not ask CSP reports for one: the browser sends those without the page', async () => {
    const relay = await relayWith({ PAGE_TOKEN_SECRET: SECRET });
    const body = JSON.stringify({
      'csp-report': {
        'document-uri': 'https://shop.example.com/',
        'violated-directive': 'script-src',
        'blocked-uri': 'inline',
      },
    });
    const answer = await post(`${relay.url}/monitoring/security?${new URLSearchParams({ dsn })}`, body, {
      'content-type': 'application/csp-report',
    });
    expect(answer.status).toBe(200);
  });
});
