// What the hostile-key requests (hostile-keys.ts) are made from: a payload of each item type as the SDKs write it,
// and both forms of CSP report, small, with every field the relay reads and KEY_SLOTs where a key hides in a string.

/** Template strings holding this get the hostile key in the `in strings` variants (query strings, cookies, forms). */
export const KEY_SLOT = '%KEY%';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';
export const TRACE_ID = '4c79f60c11214eb38604f4ae0781bfb2';
const SPAN_ID = 'fa90fdead5f74052';
const NOW = 1_795_000_000;

const request = {
  url: `https://shop.example.com/items?${KEY_SLOT}=1&q=shoes#${KEY_SLOT}=x`,
  method: 'GET',
  query_string: `${KEY_SLOT}=password&page=2`,
  cookies: `${KEY_SLOT}=s3cret; theme=dark`,
  headers: { 'User-Agent': UA, Cookie: `${KEY_SLOT}=s3cret`, Referer: 'https://shop.example.com/' },
  data: { field: 'value', form: `${KEY_SLOT}=hunter2&a=b` },
  env: { REMOTE_ADDR: '203.0.113.9' },
};
const trace = { trace_id: TRACE_ID, span_id: SPAN_ID, op: 'pageload', data: { 'http.query': `${KEY_SLOT}=1` } };

/** A payload of each item type as the SDKs write them, small, with every field the relay reads. */
export const ITEM_TEMPLATES: ReadonlyArray<{ header: Record<string, unknown>; payload: unknown }> = [
  {
    header: { type: 'event' },
    payload: {
      event_id: '9ec79c33ec9942ab8353589fcb2e04dc',
      timestamp: NOW,
      platform: 'javascript',
      level: 'error',
      logentry: { formatted: 'failed for jane@example.com', message: 'failed for %s', params: ['jane'] },
      exception: {
        values: [
          {
            type: 'TypeError',
            value: 'x is undefined',
            stacktrace: { frames: [{ filename: 'app.js', function: 'f', lineno: 1, vars: { [KEY_SLOT]: 'v' } }] },
            mechanism: { type: 'onerror', handled: false, data: { [KEY_SLOT]: 'v' } },
          },
        ],
      },
      request,
      user: { id: '1', ip_address: '{{auto}}', data: { plan: 'pro' } },
      extra: { note: 'n', nested: { deep: 'd' } },
      tags: { route: '/items/:id' },
      contexts: {
        trace,
        browser: { name: 'Chrome' },
        custom: { k: 'v' },
        response: { headers: { 'Set-Cookie': 'a' } },
      },
      breadcrumbs: { values: [{ message: 'clicked', category: 'ui', data: { [KEY_SLOT]: 'v' } }] },
      sdk: { name: 'sentry.javascript.react', version: '11.12.0', settings: { infer_ip: 'auto' } },
      _meta: { extra: { note: { '': { len: 1 } } } },
    },
  },
  {
    header: { type: 'transaction' },
    payload: {
      type: 'transaction',
      transaction: '/items/:id',
      start_timestamp: NOW - 1,
      timestamp: NOW,
      contexts: { trace },
      spans: [{ trace_id: TRACE_ID, span_id: SPAN_ID, description: 'GET /api', data: { 'url.query': 'a=1' } }],
      measurements: { lcp: { value: 1, unit: 'millisecond' } },
      request,
    },
  },
  {
    header: { type: 'feedback' },
    payload: {
      type: 'feedback',
      timestamp: NOW,
      contexts: { feedback: { message: 'broken', contact_email: 'jane@example.com', name: 'Jane', url: 'https://x' } },
      user: { email: 'jane@example.com' },
    },
  },
  {
    header: { type: 'span', item_count: 1, content_type: 'application/vnd.sentry.items.span.v2+json' },
    payload: {
      items: [
        {
          trace_id: TRACE_ID,
          span_id: SPAN_ID,
          name: 'GET /api',
          status: 'ok',
          is_segment: true,
          start_timestamp: NOW - 1,
          end_timestamp: NOW,
          attributes: { 'url.full': { type: 'string', value: `https://x/?${KEY_SLOT}=1` } },
        },
      ],
    },
  },
  {
    header: { type: 'log', item_count: 1, content_type: 'application/vnd.sentry.items.log+json' },
    payload: {
      items: [
        {
          timestamp: NOW,
          level: 'info',
          body: 'user jane@example.com signed in',
          trace_id: TRACE_ID,
          attributes: { 'user.email': { type: 'string', value: 'jane@example.com' } },
        },
      ],
    },
  },
  {
    header: { type: 'replay_event' },
    payload: {
      type: 'replay_event',
      replay_id: '7b2e3c1d9a8f4e5b8c6d7e8f9a0b1c2d',
      segment_id: 0,
      timestamp: NOW,
      replay_start_timestamp: NOW - 1,
      urls: ['https://shop.example.com/'],
      error_ids: [],
      trace_ids: [],
      request: { url: 'https://shop.example.com/', headers: { 'User-Agent': UA } },
      contexts: { browser: { name: 'Chrome' } },
      user: { ip_address: '{{auto}}' },
    },
  },
  {
    header: { type: 'user_report' },
    payload: { event_id: '9ec79c33ec9942ab8353589fcb2e04dc', name: 'Jane', email: 'jane@example.com', comments: 'c' },
  },
  {
    header: { type: 'check_in' },
    payload: {
      check_in_id: '83a7c7f5e4b3a2f1e0d9c8b7a6f5e4d3',
      monitor_slug: 'nightly',
      status: 'ok',
      duration: 1.5,
      monitor_config: { schedule: { type: 'crontab', value: '0 0 * * *' }, timezone: 'UTC' },
      contexts: { trace: { trace_id: TRACE_ID } },
    },
  },
  {
    header: { type: 'client_report' },
    payload: { timestamp: NOW, discarded_events: [{ reason: 'queue_overflow', category: 'error', quantity: 1 }] },
  },
  {
    header: { type: 'session' },
    payload: {
      sid: '3b2e3c1d9a8f4e5b8c6d7e8f9a0b1c2d',
      init: true,
      started: '2026-12-01T00:00:00.000Z',
      timestamp: '2026-12-01T00:00:01.000Z',
      status: 'ok',
      errors: 0,
      attrs: { release: 'shop@1.4.2', environment: 'production', user_agent: UA },
    },
  },
  {
    header: { type: 'sessions' },
    payload: {
      aggregates: [{ started: '2026-12-01T00:00:00.000Z', exited: 1, errored: 0 }],
      attrs: { release: 'shop@1.4.2', environment: 'production' },
    },
  },
  {
    header: { type: 'raw_security', content_type: 'application/csp-report' },
    payload: { 'csp-report': { 'document-uri': 'https://shop.example.com/', 'blocked-uri': 'https://evil.example' } },
  },
];

/** The CSP report a browser posts with `report-uri` (application/csp-report). */
export const CSP_REPORT_TEMPLATE = {
  'csp-report': {
    'document-uri': `https://shop.example.com/?${KEY_SLOT}=1`,
    referrer: '',
    'violated-directive': 'script-src-elem',
    'effective-directive': 'script-src-elem',
    'original-policy': "default-src 'self'",
    'blocked-uri': 'https://evil.example/x.js',
    'status-code': 200,
    'source-file': 'https://shop.example.com/app.js',
    'line-number': 1,
  },
};

/** A Reporting API batch (`report-to`, application/reports+json) with one CSP violation. */
export const REPORTS_BATCH_TEMPLATE = [
  {
    type: 'csp-violation',
    age: 0,
    url: 'https://shop.example.com/',
    user_agent: UA,
    body: {
      documentURL: `https://shop.example.com/?${KEY_SLOT}=1`,
      blockedURL: 'https://evil.example/x.js',
      effectiveDirective: 'script-src-elem',
      originalPolicy: "default-src 'self'",
      sourceFile: 'https://shop.example.com/app.js',
      disposition: 'enforce',
      statusCode: 200,
    },
  },
];
