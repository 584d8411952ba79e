// Requests whose JSON carries the names of Object.prototype's members as keys, at every key position of every item
// type a Sentry SDK sends, of the envelope and item headers, and of CSP reports (issue 37). A relay that writes
// client-chosen keys into plain objects puts them on the prototype every later object inherits from.
// The JSON is written by hand (`withMember`): an object literal or assignment would set the prototype instead.

/** The keys: the prototype accessor, and members every plain object inherits. */
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

/**
 * What stands under a hostile key: an object the scrubbers act on (the member names of issue 37's crash), a string
 * with secrets in it, and a list shaped like a key-value pair list.
 */
export const POISONS = {
  object: '{"no_cache":"password","password":"hunter2","card":"4571234567890111","nested":{"secret":"s3cret"}}',
  string: '"password=hunter2 4571234567890111 jane@example.com"',
  pairs: '[["password","hunter2"],["__proto__","4571234567890111"]]',
} as const;
export type PoisonKind = keyof typeof POISONS;

/** Template strings holding this get the hostile key in the `embedded` variants (query strings, cookies, forms). */
export const KEY_SLOT = '%KEY%';

export type JsonPath = ReadonlyArray<string | number>;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The path of every object in `value`, the root included, depth first. */
export function objectPaths(value: unknown, at: JsonPath = []): JsonPath[] {
  if (Array.isArray(value)) return value.flatMap((element, i) => objectPaths(element, [...at, i]));
  if (!isPlainObject(value)) return [];
  return [at, ...Object.keys(value).flatMap((key) => objectPaths(value[key], [...at, key]))];
}

const samePath = (a: JsonPath, b: JsonPath) => a.length === b.length && a.every((part, i) => part === b[i]);

/** `value` as JSON with the member `"key": memberJson` first in the object at `path` (none when path is absent). */
export function withMember(value: unknown, path: JsonPath | undefined, key: string, memberJson: string): string {
  const write = (node: unknown, at: JsonPath): string => {
    if (Array.isArray(node)) return `[${node.map((element, i) => write(element, [...at, i])).join(',')}]`;
    if (!isPlainObject(node)) return JSON.stringify(node);
    const members = Object.keys(node).map((name) => `${JSON.stringify(name)}:${write(node[name], [...at, name])}`);
    if (path !== undefined && samePath(at, path)) members.unshift(`${JSON.stringify(key)}:${memberJson}`);
    return `{${members.join(',')}}`;
  };
  return write(value, []);
}

/** `value` with every string's KEY_SLOT replaced by `key`. */
export function fillSlots(value: unknown, key: string): unknown {
  if (typeof value === 'string') return value.replaceAll(KEY_SLOT, key);
  if (Array.isArray(value)) return value.map((element) => fillSlots(element, key));
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.keys(value).map((name) => [name, fillSlots(value[name], key)]));
}

export interface HostileJson {
  /** Which key, where, under which poison: e.g. `__proto__ at extra.nested (object)`. */
  name: string;
  key: string;
  json: string;
}

const describePath = (path: JsonPath) => (path.length === 0 ? '(root)' : path.join('.'));

/**
 * Every variant of `template`: each hostile key added at each object position under each poison, and (when the
 * template has KEY_SLOTs) once with the key in its slots. Slots are filled with a harmless name elsewhere.
 */
export function hostileJson(template: unknown, keys: readonly string[] = PROTOTYPE_KEYS): HostileJson[] {
  const plain = fillSlots(template, 'name');
  const out: HostileJson[] = [];
  for (const key of keys) {
    for (const path of objectPaths(plain)) {
      for (const [kind, member] of Object.entries(POISONS)) {
        out.push({
          name: `${key} at ${describePath(path)} (${kind})`,
          key,
          json: withMember(plain, path, key, member),
        });
      }
    }
    if (JSON.stringify(template).includes(KEY_SLOT)) {
      out.push({ name: `${key} in strings`, key, json: JSON.stringify(fillSlots(template, key)) });
    }
  }
  return out;
}

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';
const TRACE_ID = '4c79f60c11214eb38604f4ae0781bfb2';
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

export interface HostileRequest {
  name: string;
  key: string;
  /** The envelope header's event_id (tunnel requests), to find the envelope upstream. */
  eventId?: string;
  contentType: string;
  body: Buffer;
}

const ATTACHMENT = Buffer.from('binary\n\u0000attachment');

/**
 * Every hostile tunnel request for `dsn`: the envelope header, each item header (an attachment's too) and each
 * item type's payload, each hostile key at each position. `idPrefix` (hex) keeps event ids apart between callers.
 */
export function hostileEnvelopes(dsn: string, idPrefix = 'a0'): HostileRequest[] {
  let counter = 0;
  const nextId = () => `${idPrefix}${(counter++).toString(16).padStart(32 - idPrefix.length, '0')}`;
  const out: HostileRequest[] = [];
  const add = (name: string, key: string, header: (eventId: string) => string, items: string[]) => {
    const eventId = nextId();
    const body = Buffer.from([header(eventId), ...items].join('\n'));
    out.push({ name, key, eventId, contentType: 'application/x-sentry-envelope', body });
  };
  const envelopeHeader = (eventId: string) => ({
    event_id: eventId,
    dsn,
    sent_at: '2026-12-01T00:00:01.000Z',
    sdk: { name: 'sentry.javascript.react', version: '11.12.0' },
    trace: { trace_id: TRACE_ID, public_key: 'abc', sample_rand: '0.5', sampled: 'true' },
    client_hints: { sec_ch_ua_platform: '"Linux"' },
  });
  const plainHeader = (eventId: string) => JSON.stringify(envelopeHeader(eventId));
  const [event] = ITEM_TEMPLATES;
  const eventLines = event ? [JSON.stringify(event.header), JSON.stringify(fillSlots(event.payload, 'name'))] : [];

  for (const variant of hostileJson(envelopeHeader('0'.repeat(32)))) {
    add(
      `envelope header: ${variant.name}`,
      variant.key,
      (eventId) => variant.json.replace('0'.repeat(32), eventId),
      eventLines,
    );
  }
  const attachmentHeader = {
    type: 'attachment',
    length: ATTACHMENT.length,
    filename: 'dump.bin',
    content_type: 'application/octet-stream',
    attachment_type: 'event.attachment',
  };
  for (const variant of hostileJson(attachmentHeader)) {
    add(`attachment header: ${variant.name}`, variant.key, plainHeader, [
      ...eventLines,
      `${variant.json}\n${ATTACHMENT.toString('latin1')}`,
    ]);
  }
  for (const { header, payload } of ITEM_TEMPLATES) {
    const type = String(header.type);
    const filled = JSON.stringify(fillSlots(payload, 'name'));
    for (const variant of hostileJson(header)) {
      add(`${type} item header: ${variant.name}`, variant.key, plainHeader, [variant.json, filled]);
    }
    for (const variant of hostileJson(payload)) {
      add(`${type} payload: ${variant.name}`, variant.key, plainHeader, [JSON.stringify(header), variant.json]);
    }
  }
  return out;
}

/** Every hostile CSP report: a report-uri report and a Reporting API batch, each hostile key at each position. */
export function hostileSecurityReports(): HostileRequest[] {
  const out: HostileRequest[] = [];
  for (const [contentType, template] of [
    ['application/csp-report', CSP_REPORT_TEMPLATE],
    ['application/reports+json', REPORTS_BATCH_TEMPLATE],
  ] as const) {
    for (const variant of hostileJson(template)) {
      out.push({
        name: `${contentType}: ${variant.name}`,
        key: variant.key,
        contentType,
        body: Buffer.from(variant.json),
      });
    }
  }
  return out;
}
