// Every field, header, query parameter and JSON key the relay reads from a request, with its bound and where the
// bound comes from: the data behind README.md's "What a client may send" table and the generated test
// (request-inventory.test.ts), which sends each at 64 KiB (and 1000 times where the relay multiplies it). A field
// the relay starts reading is covered by adding one row here.

export type Route = 'tunnel' | 'security';
export type Place = 'HTTP header' | 'query' | 'envelope header' | 'item header' | 'payload' | 'report';

export interface Field {
  route: Route;
  place: Place;
  name: string;
  bound: string;
  source: string;
  /** The relay copies the field into every item it builds or forwards: also sent 1000 times. */
  multiplied?: true;
}

const header = (route: Route, name: string, bound: string, source: string): Field => ({
  route,
  place: 'HTTP header',
  name,
  bound,
  source,
});
const envelopeKey = (name: string, bound: string, source = "Relay's `EnvelopeHeaders` types"): Field => ({
  route: 'tunnel',
  place: 'envelope header',
  name,
  bound: `${bound}; the header line ≤ 64 KiB`,
  source,
});
const itemKey = (name: string, bound: string, source = "Relay's `ItemHeaders` types"): Field => ({
  route: 'tunnel',
  place: 'item header',
  name,
  bound: `${bound}; the line ≤ 8 KiB, all header lines ≤ 256 KiB, ≤ MAX_ITEMS items`,
  source,
  multiplied: true,
});
const COPIED = 'copied upstream when ≤ 1024 characters, else dropped';
const NODE_HEADERS = "Node's 16 KiB header limit (431)";

export const FIELDS: readonly Field[] = [
  header('tunnel', 'content-length', 'a number ≤ MAX_BODY_BYTES, else 413 before reading', 'MAX_BODY_BYTES'),
  header(
    'tunnel',
    'content-encoding',
    'identity, gzip, deflate, br or zstd, else 415 quoting ≤ 48 characters',
    'Sentry',
  ),
  header(
    'tunnel',
    'x-forwarded-for',
    'believed for TRUSTED_PROXY_HOPS hops, and only an IP address without a zone',
    NODE_HEADERS,
  ),
  header('tunnel', 'x-request-id', 'kept when it matches [\\w.:-]{1,128}, else replaced', 'service-kit'),
  header('tunnel', 'user-agent', COPIED, 'identity.ts'),
  header(
    'tunnel',
    'origin',
    `${COPIED}; compared whole with the project's origins, echoed only when one of them`,
    'identity.ts, cors.ts',
  ),
  header('tunnel', 'referer', 'its origin copied upstream when ≤ 1024 characters, else dropped', 'identity.ts'),
  header('tunnel', 'sec-ch-ua', COPIED, 'identity.ts'),
  header('tunnel', 'x-unknown-header', 'not read', NODE_HEADERS),
  header(
    'security',
    'content-type',
    'one of six report types, else 415 quoting ≤ 48 characters',
    "Sentry's security endpoint",
  ),
  {
    route: 'security',
    place: 'query',
    name: 'dsn',
    bound: '≤ 512 printable ASCII characters, public key ≤ 64 (URL-escaped)',
    source: "Relay's `ProjectKey` (32 hex characters); a DSN is ≈100",
  },
  {
    route: 'security',
    place: 'query',
    name: 'sentry_release',
    bound: '≤ 200 characters, no control characters, "/" or "\\", not ".", "..", " ", "latest"',
    source: 'Sentry docs, "Releases: naming"',
    multiplied: true,
  },
  {
    route: 'security',
    place: 'query',
    name: 'sentry_environment',
    bound: '≤ 64 characters, no control characters, "/" or space, not "None"',
    source: 'Sentry docs, "Environments"',
    multiplied: true,
  },
  { route: 'security', place: 'query', name: 'unknown_key', bound: 'not read', source: NODE_HEADERS },
  {
    route: 'security',
    place: 'report',
    name: 'type',
    bound: '"csp-violation" kept, others left out; ≤ 100 violations a batch; body ≤ MAX_EVENT_ITEM_BYTES',
    source: 'this relay (Reporting API batches are small)',
    multiplied: true,
  },
  {
    route: 'security',
    place: 'report',
    name: 'body',
    bound: 'nested ≤ 127 levels; the built envelope within the tunnel limits, charged first',
    source: "Relay's serde_json recursion limit",
  },
  envelopeKey(
    'dsn',
    '≤ 512 printable ASCII characters, public key ≤ 64 (URL-escaped); only accepted DSNs cached',
    "Relay's `ProjectKey` (32 hex characters); a DSN is ≈100",
  ),
  envelopeKey('event_id', 'a UUID'),
  envelopeKey('sent_at', 'an RFC 3339 timestamp'),
  envelopeKey('retention', 'an integer 0–65535'),
  envelopeKey('trace', 'any JSON, nested ≤ 127 levels'),
  envelopeKey('required_features', 'an array of strings'),
  envelopeKey('client', 'a string'),
  envelopeKey('version', 'an integer 0–65535'),
  envelopeKey('origin', 'refused: request metadata'),
  envelopeKey('remote_addr', 'refused: request metadata'),
  envelopeKey('forwarded_for', 'refused: request metadata'),
  envelopeKey('user_agent', 'a string'),
  envelopeKey('client_hints', 'an object of strings'),
  envelopeKey('unknown_key', 'forwarded as written'),
  itemKey('type', 'a string; unknown types forwarded, looked up in Maps only'),
  itemKey('length', 'an integer 0–2³²−1 within the body'),
  itemKey('attachment_type', "one of Relay's attachment types"),
  itemKey('content_type', 'a string'),
  itemKey('filename', 'a string'),
  itemKey('platform', 'a string'),
  itemKey('routing_hint', 'a UUID'),
  itemKey('unknown_key', 'forwarded as written'),
  {
    route: 'tunnel',
    place: 'payload',
    name: 'event',
    bound: '≤ MAX_EVENT_ITEM_BYTES, nested ≤ 127 levels',
    source: "Relay's max_event_size and serde_json recursion limit",
  },
];
