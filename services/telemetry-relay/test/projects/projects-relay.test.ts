// Two projects on one relay, each with its own scrubbing, filters and origins (PROJECTS_FILE), over loopback HTTP:
// the settings differ per envelope by its DSN, and callers on other hosts are answered from the project's origins.
import { type CaptureServer, EVENT_ID, envelope, errorEvent, eventItem, post } from '@app/test-kit';
import { withCapture } from '@app/test-kit/with-capture';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningRelay, startRelay } from '../with-relay.ts';
import { metricValue, type ProjectsRelay, startProjectsRelay } from './projects-helpers.ts';

const under = withCapture({ projectId: '11', publicKey: 'shop' });
let capture: CaptureServer;
let relay: ProjectsRelay;
/** Shop: scrubs its own field, no ignore rules or inbound filters, callable from app.shop.test. */
let shop: string;
/** Blog: no data scrubbing, every ignore rule, an error-message filter, same-origin callers only. */
let blog: string;
/** News: two errors an hour. Forum: a spike shield keeping one in 1 000 past two of a kind. */
let news: string;
let forum: string;
const SHOP_ORIGIN = 'http://app.shop.test';

beforeAll(async () => {
  ({ capture, dsn: shop } = under);
  blog = capture.dsn({ projectId: '22', publicKey: 'blog' });
  news = capture.dsn({ projectId: '33', publicKey: 'news' });
  forum = capture.dsn({ projectId: '44', publicKey: 'forum' });
  relay = await startProjectsRelay({
    projects: {
      [shop]: {
        origins: [SHOP_ORIGIN, 'http://localhost:5173'],
        scrub: { sensitiveFields: ['order_secret'] },
        inboundFilters: { filters: ['none'] },
        ignoreRules: ['none'],
      },
      [blog]: {
        origins: [],
        scrub: { scrubData: false },
        inboundFilters: { errorMessages: ['*boom*'] },
      },
      [news]: { origins: [], quotas: { limits: [{ categories: ['error'], limit: 2, window: 3600 }] } },
      [forum]: { origins: [], quotas: { spikeShield: { threshold: 2, window: 3600, keepOneIn: 1000 } } },
    },
  });
});
afterAll(() => relay?.close());
afterEach(() => capture.clear());

const withExtra = (message = 'Cannot read properties of undefined', extra: Record<string, unknown> = {}) => ({
  ...errorEvent(message),
  extra,
});
const send = (dsn: string, event: unknown, headers: Record<string, string> = {}) =>
  post(relay.tunnel, envelope({ event_id: EVENT_ID, dsn }, [eventItem(event)]), headers);
const arrivedEvent = async (projectId: string) => {
  const arrived = await capture.waitFor((e) => e.projectId === projectId && e.items.some((i) => i.type === 'event'));
  return arrived.items.find((i) => i.type === 'event')?.json as Record<string, unknown>;
};

describe('per-project settings, looked up by the envelope DSN', () => {
  it.each([
    ['shop scrubs its sensitive field and the defaults', '11', { order_secret: '[Filtered]', password: '[Filtered]' }],
    ['blog scrubs nothing (scrubData: false)', '22', { order_secret: 'o-123', password: 'hunter2' }],
  ])('%s', async (_name, projectId, expected) => {
    const dsn = projectId === '11' ? shop : blog;
    expect((await send(dsn, withExtra(undefined, { order_secret: 'o-123', password: 'hunter2' }))).status).toBe(200);
    expect((await arrivedEvent(projectId)).extra).toEqual(expected);
  });

  it.each([
    ['an error-message filter (blog) drops, shop has none', 'boom in checkout'],
    ['an ignore rule (blog has all, shop none) drops', 'Script error.'],
  ])('%s', async (_name, message) => {
    expect((await send(blog, withExtra(message))).status).toBe(200);
    expect((await send(shop, withExtra(message))).status).toBe(200);
    const kept = await arrivedEvent('11');
    expect((kept.exception as { values: Array<{ value: string }> }).values[0]?.value).toBe(message);
    // Blog's event was dropped: nothing of it reaches upstream but, later, a client report.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(capture.envelopes.filter((e) => e.projectId === '22' && e.items.some((i) => i.type === 'event'))).toEqual(
      [],
    );
  });
});

describe('quotas and the spike shield, per project', () => {
  const errorsOf = (projectId: string) =>
    capture.envelopes.filter((e) => e.projectId === projectId && e.items.some((i) => i.type === 'event')).length;

  it("a project's error quota answers 429 for the category once spent; another project's errors all pass", async () => {
    const statuses: number[] = [];
    for (let n = 0; n < 3; n++) {
      const answer = await post(relay.tunnel, envelope({ event_id: EVENT_ID, dsn: news }, [eventItem(withExtra())]));
      statuses.push(answer.status);
      if (answer.status === 429) expect(answer.headers.get('x-sentry-rate-limits')).toMatch(/^\d+:error[;:]/);
    }
    expect(statuses).toEqual([200, 200, 429]);
    for (let n = 0; n < 3; n++) expect((await send(shop, withExtra())).status).toBe(200);
    await capture.waitFor(() => errorsOf('11') === 3 && errorsOf('33') === 2);
  });

  it("a project's spike shield samples one error repeated; the same error from another project all passes", async () => {
    for (let n = 0; n < 5; n++) {
      expect((await send(forum, withExtra('TypeError in the same place'))).status).toBe(200);
      expect((await send(shop, withExtra('TypeError in the same place'))).status).toBe(200);
    }
    await capture.waitFor(() => errorsOf('11') === 5 && errorsOf('44') === 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(errorsOf('44')).toBe(2);
  });
});

describe('callers on other hosts (CORS)', () => {
  const preflight = (url: string, origin: string) =>
    fetch(url, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });

  it('answers the tunnel preflight for an origin some project allows, echoing it (never *)', async () => {
    const response = await preflight(relay.tunnel, SHOP_ORIGIN);
    expect(response.status).toBe(204);
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'access-control-allow-origin': SHOP_ORIGIN,
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-allow-headers': 'Content-Type, Content-Encoding, X-Page-Token',
      'access-control-expose-headers': 'X-Sentry-Rate-Limits, Retry-After',
      'access-control-max-age': '300',
      vary: 'Origin',
    });
  });

  it.each([
    ['an origin no project lists', 'http://evil.test'],
    ['a listed origin on another port', 'http://app.shop.test:8080'],
    ['the opaque origin', 'null'],
  ])('refuses the preflight from %s with a 403 and no CORS headers', async (_name, origin) => {
    const response = await preflight(relay.tunnel, origin);
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(await response.json()).toEqual({
      error: 'origin_not_allowed',
      detail: `pages on ${JSON.stringify(origin)} may not send to this relay's projects`,
    });
  });

  it.each<[string, () => string, Record<string, string>, number, string | null]>([
    ['shop from its origin: accepted, readable', () => shop, { origin: SHOP_ORIGIN }, 200, SHOP_ORIGIN],
    ['shop from its second origin', () => shop, { origin: 'http://localhost:5173' }, 200, 'http://localhost:5173'],
    ['shop from another origin: refused', () => shop, { origin: 'http://evil.test' }, 403, null],
    ["blog from shop's origin: refused (checked per project)", () => blog, { origin: SHOP_ORIGIN }, 403, null],
    ['blog with no Origin (not a browser CORS call): as before', () => blog, {}, 200, null],
    ['blog from its own host (same origin): as before', () => blog, { origin: 'SAME' }, 200, null],
  ])('POST %s', async (_name, dsn, headers, status, allowOrigin) => {
    const same = headers.origin === 'SAME' ? { origin: relay.url } : headers;
    const response = await send(dsn(), withExtra(), same);
    expect(response.status).toBe(status);
    expect(response.headers.get('access-control-allow-origin')).toBe(allowOrigin);
    if (allowOrigin) {
      expect(response.headers.get('access-control-expose-headers')).toBe('X-Sentry-Rate-Limits, Retry-After');
      expect(response.headers.get('vary')).toBe('Origin');
    }
    if (status === 403) expect(response.json.error).toBe('origin_not_allowed');
  });

  it('counts refused origins', async () => {
    const before = await metricValue(relay.url, 'relay_envelopes_rejected_total{reason="origin_not_allowed"}');
    await send(shop, withExtra(), { origin: 'http://evil.test' });
    await preflight(relay.tunnel, 'http://evil.test');
    expect(await metricValue(relay.url, 'relay_envelopes_rejected_total{reason="origin_not_allowed"}')).toBe(
      before + 2,
    );
  });

  it.each([
    ['shop', () => shop, 204],
    ['blog (same-origin only)', () => blog, 403],
  ])("answers the CSP route's preflight from the query's project: %s", async (_name, dsn, status) => {
    const url = `${relay.url}/monitoring/security?${new URLSearchParams({ dsn: dsn() })}`;
    const response = await preflight(url, SHOP_ORIGIN);
    expect(response.status).toBe(status);
    expect(response.headers.get('access-control-allow-origin')).toBe(status === 204 ? SHOP_ORIGIN : null);
  });

  it.each([
    ['shop', () => shop, 200],
    ['blog', () => blog, 403],
  ])('takes a cross-origin CSP report for %s only if its project lists the origin', async (_name, dsn, status) => {
    const url = `${relay.url}/monitoring/security?${new URLSearchParams({ dsn: dsn() })}`;
    const body = JSON.stringify({ 'csp-report': { 'document-uri': `${SHOP_ORIGIN}/`, 'blocked-uri': 'inline' } });
    const response = await post(url, body, { 'content-type': 'application/csp-report', origin: SHOP_ORIGIN });
    expect(response.status).toBe(status);
    expect(response.headers.get('access-control-allow-origin')).toBe(status === 200 ? SHOP_ORIGIN : null);
  });
});

describe('the environment shorthand (no PROJECTS_FILE)', () => {
  let plain: RunningRelay | undefined;
  afterEach(() => plain?.close());
  const postFrom = (origin: string) =>
    post(plain?.tunnel as string, envelope({ dsn: shop }, [eventItem()]), { origin });

  it.each<[string, Record<string, string>, number, string | null]>([
    ['ALLOWED_ORIGINS lists it: accepted, readable', { ALLOWED_ORIGINS: SHOP_ORIGIN }, 200, SHOP_ORIGIN],
    ['ALLOWED_ORIGINS set without it: refused', { ALLOWED_ORIGINS: 'http://other.test' }, 403, null],
    ['ALLOWED_ORIGINS unset: not checked, no CORS headers (as before)', {}, 200, null],
  ])('a POST from another origin, %s', async (_name, env, status, allowOrigin) => {
    plain = await startRelay({ ALLOWED_DSNS: shop, ...env });
    const response = await postFrom(SHOP_ORIGIN);
    expect(response.status).toBe(status);
    expect(response.headers.get('access-control-allow-origin')).toBe(allowOrigin);
  });
});
