// Requests whose JSON has Object.prototype's member names as keys at every key position of every item type, of the
// envelope and item headers and of CSP reports (issue 37): a relay writing client keys into plain objects pollutes the
// prototype. The JSON is written by hand (`withMember`): a literal or an assignment would set the prototype instead.
import {
  CSP_REPORT_TEMPLATE,
  ITEM_TEMPLATES,
  KEY_SLOT,
  REPORTS_BATCH_TEMPLATE,
  TRACE_ID,
} from './hostile-key-templates.ts';

export { CSP_REPORT_TEMPLATE, ITEM_TEMPLATES, KEY_SLOT, REPORTS_BATCH_TEMPLATE };

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
