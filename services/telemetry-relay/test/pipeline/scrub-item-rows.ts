// Conformance rows for issue 37's findings and for every item type beyond events (scrub-conformance.test.ts runs
// them through the code and over HTTP). The span, log and metric containers are the shapes @sentry/node 11.12 wrote
// (traceLifecycle 'stream', Sentry.logger, metrics.count) with `ingest_settings` as @sentry/browser 11.12 adds it;
// what Relay does with each is named in the row (relay-server/src/processing/*, relay-pii eap.rs, convert.rs).

export type Env = Record<string, string>;
export interface ScrubRow {
  env?: Env;
  input: Record<string, unknown>;
  output: Record<string, unknown>;
  /** `_meta` as Relay writes it, where the row checks it (a container's: its first item's). */
  meta?: Record<string, unknown>;
  /** A browser's CSP report (raw_security) rather than an event. */
  csp?: true;
  /** Another item than an event: its type and item header; the payload is `input` as it is. */
  item?: { type: string; header?: Record<string, unknown> };
  /** Envelope header fields besides `event_id` and `dsn`. */
  envelope?: Record<string, unknown>;
  /** Request headers the upstream must not receive (checked over HTTP). */
  absentHeaders?: string[];
  /** The item as written, where JSON.stringify(input) cannot write it (a key given twice); `input` is its parse. */
  raw?: string;
  /** Text the forwarded bytes must not hold anywhere (a shadowed value is in no parse). */
  absent?: string[];
}

const F = '[Filtered]';
const IP: Env = { SCRUB_IP_ADDRESSES: 'true' };
const TRACE_ID = 'ca770111875e48c7a70608c29d61c236';
const SPAN_ID = 'bb46a52ad4521bca';
const attr = (value: unknown, type = typeof value === 'number' ? 'integer' : 'string') => ({ value, type });
const sdkAttributes = () => ({
  'sentry.sdk.name': attr('sentry.javascript.browser'),
  'sentry.sdk.version': attr('11.12.0'),
});
const SPAN_HEADER = { content_type: 'application/vnd.sentry.items.span.v2+json', item_count: 1 };
const LOG_HEADER = { content_type: 'application/vnd.sentry.items.log+json', item_count: 1 };
const METRIC_HEADER = { content_type: 'application/vnd.sentry.items.trace-metric+json', item_count: 1 };
const BROWSER_INGEST = { infer_ip: 'auto', infer_user_agent: 'auto' };

const span = (attributes: Record<string, unknown>) => ({
  version: 2,
  items: [
    {
      name: 'GET /login',
      span_id: SPAN_ID,
      trace_id: TRACE_ID,
      start_timestamp: 1796138511.0625327,
      end_timestamp: 1796138511.0673096,
      is_segment: true,
      status: 'ok',
      attributes: { 'sentry.origin': attr('manual'), ...attributes, ...sdkAttributes() },
    },
  ],
});
const log = (body: string, attributes: Record<string, unknown>, ingest?: Record<string, unknown>) => ({
  version: 2,
  ...(ingest && { ingest_settings: ingest }),
  items: [
    {
      timestamp: 1796138511.065176,
      level: 'info',
      body,
      trace_id: TRACE_ID,
      severity_number: 9,
      attributes: { ...attributes, ...sdkAttributes(), 'sentry.timestamp.sequence': attr(0) },
    },
  ],
});
const metric = (attributes: Record<string, unknown>) => ({
  version: 2,
  items: [
    {
      timestamp: 1796138511.06687,
      trace_id: TRACE_ID,
      span_id: SPAN_ID,
      name: 'logins',
      type: 'counter',
      value: 1,
      attributes: { ...attributes, ...sdkAttributes() },
    },
  ],
});
const remark = (rule: string, len: number, end = 10) => ({ '': { rem: [[rule, 's', 0, end]], len } });

export const ITEM_ROWS: Array<[name: string, row: ScrubRow]> = [
  // Issue 37, event fields (relay-event-normalization request.rs normalize_url; protocol/mechanism.rs)
  [
    'normalization: the URL fragment → request.fragment, scrubbed as one value (the URL keeps it here)',
    {
      input: { request: { url: 'https://shop.example/callback#access_token=ya29.a0AfB-secret&state=xyz' } },
      output: { request: { url: `https://shop.example/callback#${F}` } },
      meta: { request: { url: { '': { rem: [['@password:filter', 's', 30, 40]], len: 70 } } } },
    },
  ],
  [
    'normalization: the URL query beside a query_string (Relay drops it; scrubbed as query_string pairs here)',
    {
      input: { request: { url: 'https://shop.example/login?password=hunter2', query_string: 'next=%2Fcart' } },
      output: { request: { url: `https://shop.example/login?password=${F}`, query_string: 'next=%2Fcart' } },
    },
  ],
  [
    'normalization: a key unknown to Relay goes to request.other, which is scrubbed',
    {
      input: {
        request: { url: 'https://shop.example/', method: 'GET', upstream: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig' },
      },
      output: { request: { url: 'https://shop.example/', method: 'GET', upstream: F } },
    },
  ],
  [
    'mechanism.rs: exception.values[].mechanism.data is scrubbed (pii = "true")',
    {
      input: {
        exception: {
          values: [{ type: 'Error', value: 'boom', mechanism: { type: 'generic', data: { password: 'hunter2' } } }],
        },
      },
      output: {
        exception: {
          values: [{ type: 'Error', value: 'boom', mechanism: { type: 'generic', data: { password: F } } }],
        },
      },
    },
  ],
  [
    'SCRUB_IP_ADDRESSES: no X-Sentry-Forwarded-For upstream, sdk.settings.infer_ip "never", {{auto}} removed',
    {
      env: IP,
      input: {
        platform: 'javascript',
        sdk: { name: 'sentry.javascript.browser', version: '11.12.0', settings: { infer_ip: 'auto' } },
        user: { ip_address: '{{auto}}' },
      },
      output: {
        platform: 'javascript',
        sdk: { name: 'sentry.javascript.browser', version: '11.12.0', settings: { infer_ip: 'never' } },
        user: { ip_address: null },
      },
      absentHeaders: ['x-sentry-forwarded-for'],
    },
  ],
  [
    'SCRUB_STRICT: exception values get the full field rules (beyond Relay)',
    {
      env: { SCRUB_STRICT: 'true' },
      input: {
        exception: {
          values: [
            { type: 'Error', value: 'GET /api/orders?api_key=sk_live_4eC39HqLyjWDarjtT1 failed' },
            { type: 'Error', value: 'password hunter2 rejected' },
          ],
        },
      },
      output: {
        exception: {
          values: [
            { type: 'Error', value: F },
            { type: 'Error', value: F },
          ],
        },
      },
    },
  ],
  // Item types beyond events
  [
    'span v2 (processing/spans, eap.rs): attributes by name; url.full is scrubbed, sentry.release and url.path kept',
    {
      item: { type: 'span', header: SPAN_HEADER },
      envelope: { trace: { trace_id: TRACE_ID, public_key: 'scrub' } },
      input: span({
        'url.full': attr('https://shop.example/login?password=hunter2'),
        'http.query': attr('card=4571234567890111'),
        password: attr('hunter2'),
        'db.query.parameter.pin': attr(4242, 'integer'),
        api_key: attr(4242, 'integer'),
        'sentry.release': attr('secret-release@1'),
        'sentry.description': attr('auth callback'),
      }),
      output: span({
        'url.full': attr(F),
        'http.query': attr(`card=${F}`),
        password: attr(F),
        'db.query.parameter.pin': attr(4242, 'integer'),
        api_key: attr(null, 'integer'),
        'sentry.release': attr('secret-release@1'),
        'sentry.description': attr('auth callback'),
      }),
      meta: {
        attributes: {
          'url.full': { value: remark('@password:filter', 43) },
          password: { value: remark('@password:filter', 7) },
          api_key: { value: { '': { rem: [['@password:filter', 'x']] } } },
        },
      },
    },
  ],
  [
    'log (processing/logs, PR #5272): attributes by name, the body gets only partial replacements',
    {
      item: { type: 'log', header: LOG_HEADER },
      input: log('user logged in with card 4571234567890111, password hunter2', {
        password: attr('hunter2'),
        'user.name': attr('jane'),
        'server.address': attr('secret-host'),
      }),
      output: log('user logged in with card [creditcard], password hunter2', {
        password: attr(F),
        'user.name': attr('jane'),
        'server.address': attr('secret-host'),
      }),
      meta: { body: { '': { rem: [['@creditcard:replace', 's', 25, 37]], len: 59 } } },
    },
  ],
  [
    'log with SCRUB_IP_ADDRESSES: client.address and user.ip_address removed, ingest_settings.infer_ip "never"',
    {
      env: IP,
      item: { type: 'log', header: LOG_HEADER },
      input: log(
        'checkout from 203.0.113.7',
        { 'client.address': attr('203.0.113.7'), 'user.ip_address': attr('{{auto}}') },
        BROWSER_INGEST,
      ),
      output: log(
        'checkout from 203.0.113.7',
        { 'client.address': attr(null), 'user.ip_address': attr(null) },
        { ...BROWSER_INGEST, infer_ip: 'never' },
      ),
    },
  ],
  [
    'trace_metric (processing/trace_metrics): attributes by name',
    {
      item: { type: 'trace_metric', header: METRIC_HEADER },
      input: metric({ api_key: attr('sk-123'), 'server.address': attr('vm') }),
      output: metric({ api_key: attr(F), 'server.address': attr('vm') }),
    },
  ],
  [
    'replay_event (services/processor/replay.rs): scrubbed as a Replay, urls included',
    {
      item: { type: 'replay_event' },
      input: {
        type: 'replay_event',
        replay_id: '36b75d9fa11f45459412a96c41bdf691',
        urls: ['https://shop.example/reset?token=8f14e45fceea167a', 'https://shop.example/cart'],
        request: { headers: { Cookie: 'theme=dark; sessionid=abc123', 'User-Agent': 'Mozilla/5.0' } },
        extra: { password: 'hunter2' },
      },
      output: {
        type: 'replay_event',
        replay_id: '36b75d9fa11f45459412a96c41bdf691',
        urls: [F, 'https://shop.example/cart'],
        request: { headers: { Cookie: `theme=dark; sessionid=${F}`, 'User-Agent': 'Mozilla/5.0' } },
        extra: { password: F },
      },
    },
  ],
  [
    'user_report: name, email and comments get the field rules (as a feedback context)',
    {
      item: { type: 'user_report' },
      input: {
        event_id: '9ec79c33ec9942ab8353589fcb2e04dc',
        name: 'Jane',
        email: 'j@x.io',
        comments: 'password hunter2',
      },
      output: { event_id: '9ec79c33ec9942ab8353589fcb2e04dc', name: 'Jane', email: 'j@x.io', comments: F },
    },
  ],
  [
    'check_in: keys Relay does not know (and drops) are scrubbed, the known ones kept',
    {
      item: { type: 'check_in' },
      input: { check_in_id: '83a7c5b2e3f44d2e', monitor_slug: 'nightly', status: 'ok', db_password: 'hunter2' },
      output: { check_in_id: '83a7c5b2e3f44d2e', monitor_slug: 'nightly', status: 'ok', db_password: F },
    },
  ],
  [
    'session with SCRUB_IP_ADDRESSES: attrs.ip_address ({{auto}}) removed',
    {
      env: IP,
      item: { type: 'session' },
      input: { sid: '7c5b8d2e', did: 'u-1', status: 'ok', attrs: { release: 'shop@1', ip_address: '{{auto}}' } },
      output: { sid: '7c5b8d2e', did: 'u-1', status: 'ok', attrs: { release: 'shop@1' } },
    },
  ],
  [
    'sessions (aggregates) with SCRUB_IP_ADDRESSES: attrs.ip_address removed',
    {
      env: IP,
      item: { type: 'sessions' },
      input: { aggregates: [{ started: '2026-12-01T15:00:00Z', exited: 1 }], attrs: { ip_address: '198.51.100.4' } },
      output: { aggregates: [{ started: '2026-12-01T15:00:00Z', exited: 1 }], attrs: {} },
    },
  ],
  [
    'span v1 (a standalone span without the v2 content type): description and data, as a transaction span',
    {
      item: { type: 'span' },
      input: { span_id: SPAN_ID, trace_id: TRACE_ID, op: 'db', data: { 'db.password': 'hunter2' } },
      output: { span_id: SPAN_ID, trace_id: TRACE_ID, op: 'db', data: { 'db.password': F } },
    },
  ],
];
