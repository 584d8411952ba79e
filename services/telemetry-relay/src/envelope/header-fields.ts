// The header keys Sentry's Relay reads into typed fields (`EnvelopeHeaders`, `RequestMeta`, `ItemHeaders`), with the
// types it insists on: it refuses the envelope when one has another type or appears twice. Other keys pass as they
// are; `null` stands for "absent" where the field is optional.
import { isIP } from 'node:net';
import { isRelayTimestamp } from './rfc3339.ts';

export interface FieldRule {
  /** What the value must be, for the error message. */
  expected: string;
  test: (value: unknown) => boolean;
  /** An unsigned integer field: the written number must be an integer literal (not 2.0, 2e0 or -0). */
  integer?: true;
}

export type FieldRules = ReadonlyMap<string, FieldRule>;

const UUID_HYPHENATED = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
/** The forms the `uuid` crate parses: simple, hyphenated, braced, URN. */
const UUID = new RegExp(
  `^(?:[0-9a-fA-F]{32}|${UUID_HYPHENATED}|\\{${UUID_HYPHENATED}\\}|urn:uuid:${UUID_HYPHENATED})$`,
);
/** Relay's `AttachmentType` (an unknown one fails to deserialize). */
const ATTACHMENT_TYPES = new Set([
  'event.attachment',
  'event.minidump',
  'event.applecrashreport',
  'event.payload',
  'playstation.prosperodump',
  'nswitch.dying_message',
  'event.breadcrumbs',
  'event.view_hierarchy',
  'unreal.context',
  'unreal.logs',
]);

const string: FieldRule = { expected: 'a string', test: (v) => typeof v === 'string' };
const optional = (rule: FieldRule): FieldRule => ({
  ...rule,
  expected: `${rule.expected} or null`,
  test: (v) => v === null || rule.test(v),
});
const unsigned = (bits: 16 | 32): FieldRule => ({
  expected: `an integer from 0 to ${2 ** bits - 1}`,
  test: (v) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) < 2 ** bits,
  integer: true,
});
const boolean: FieldRule = { expected: 'true or false', test: (v) => typeof v === 'boolean' };
const uuid: FieldRule = {
  expected: 'a UUID (32 hex digits, or hyphenated)',
  test: (v) => typeof v === 'string' && UUID.test(v),
};
const anything: FieldRule = { expected: 'anything', test: () => true };
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const ENVELOPE_HEADER_FIELDS: FieldRules = new Map(
  Object.entries({
    event_id: optional(uuid),
    // Relay would take null (and authenticate by the request); a tunnel routes by this string alone.
    dsn: string,
    sent_at: optional({
      expected: 'an RFC 3339 timestamp with a time zone',
      test: (v) => typeof v === 'string' && isRelayTimestamp(v),
    }),
    retention: optional(unsigned(16)),
    downsampled_retention: optional(unsigned(16)),
    trace: anything, // read leniently by Relay: a bad DSC is ignored, not refused
    required_features: {
      expected: 'an array of strings',
      test: (v) => Array.isArray(v) && v.every((f) => typeof f === 'string'),
    },
    client: optional(string),
    version: unsigned(16),
    origin: optional({ expected: 'a URL', test: (v) => typeof v === 'string' && URL.canParse(v) }),
    remote_addr: optional({
      expected: 'an IP address',
      test: (v) => typeof v === 'string' && isIP(v) !== 0 && !v.includes('%'),
    }),
    forwarded_for: string,
    user_agent: optional(string),
    client_hints: {
      expected: 'an object of strings',
      test: (v) => isObject(v) && Object.values(v).every((hint) => hint === null || typeof hint === 'string'),
    },
    no_cache: boolean,
  }),
);

export const ITEM_HEADER_FIELDS: FieldRules = new Map(
  Object.entries({
    type: string,
    length: optional(unsigned(32)),
    item_count: optional(unsigned(32)),
    meta_length: optional(unsigned(32)),
    attachment_type: optional({
      expected: `one of ${[...ATTACHMENT_TYPES].join(', ')}`,
      test: (v) => typeof v === 'string' && ATTACHMENT_TYPES.has(v),
    }),
    content_type: optional(string),
    filename: optional(string),
    platform: optional(string),
    routing_hint: optional(uuid),
    metrics_extracted: boolean,
    spans_extracted: boolean,
    fully_normalized: boolean,
    sampled: boolean,
  }),
);

/**
 * Envelope header keys with which Relay replaces what it learnt from the HTTP request (`PartialMeta::copy_to`):
 * a browser writing them would overrule the client address and origin this tunnel vouches for upstream.
 */
export const REQUEST_META_KEYS: ReadonlySet<string> = new Set(['origin', 'remote_addr', 'forwarded_for']);

/** Problem with the known fields of a parsed header, or undefined. `rawValue` gives a field's value as written. */
export function fieldProblem(
  header: Readonly<Record<string, unknown>>,
  rules: FieldRules,
  rawValue: (key: string) => string | undefined,
): string | undefined {
  // Own keys only: `for…in` would also visit whatever had been added to Object.prototype.
  for (const key of Object.keys(header)) {
    const rule = rules.get(key);
    if (!rule) continue;
    const value = header[key];
    if (!rule.test(value)) return `"${key}" must be ${rule.expected}, got ${describe(value)}`;
    if (rule.integer && typeof value === 'number') {
      const raw = rawValue(key);
      if (raw !== undefined && !/^(?:0|[1-9]\d*)$/.test(raw))
        return `"${key}" must be written as an integer, got ${raw.length > 40 ? `${raw.slice(0, 40)}… (${raw.length} characters)` : raw}`;
    }
  }
  return undefined;
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
