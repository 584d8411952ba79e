// Parsing a DSN as Sentry's Relay does, and where its envelopes go, so an envelope's `dsn` can be authorized.

/** A Sentry DSN: `<protocol>://<public_key>[:<secret>]@<host>[:<port>]/[<path>/]<project_id>`. */
export interface Dsn {
  protocol: 'http' | 'https';
  /** As written in the DSN (percent-escapes kept, like Relay, which compares keys undecoded). */
  publicKey: string;
  /** host[:port], lower-case, default port omitted. */
  host: string;
  /** The port, explicit or the scheme's default. */
  port: number;
  /** Path prefix before the project id ('' normally). */
  path: string;
  projectId: string;
  /** What identifies the destination: scheme + key + host + path + project (the secret is ignored). */
  key: string;
}

/**
 * A DSN is ≈100 characters (`https://<32 hex>@o<id>.ingest.<region>.sentry.io/<id>`); 512 leaves room for a long
 * self-hosted host and path, and bounds what the URL parser, the authorizer and a refusal ever see.
 */
export const MAX_DSN_CHARS = 512;
/**
 * Sentry's public keys are 32 hex characters (Relay's `ProjectKey::parse` refuses any other length); 64 leaves room
 * for development keys such as "public", and for percent-escapes, which the URL parser writes as three characters.
 */
export const MAX_PUBLIC_KEY_CHARS = 64;
/** Printable ASCII without space: what SDKs write, and what the URL parser grows at most threefold by escaping. */
const DSN_CHARACTERS = /^[\x21-\x7e]*$/;

/** Parses a DSN, or returns a message saying what is wrong with it (it never throws). */
export function parseDsn(text: string): Dsn | string {
  // Bounded before anything parses, copies or quotes it (issue 24: 60 KB keys cached, logged and echoed).
  if (text.length > MAX_DSN_CHARS) return `is ${text.length} characters long; a DSN has at most ${MAX_DSN_CHARS}`;
  if (!DSN_CHARACTERS.test(text)) return 'must be printable ASCII without spaces or control characters';
  const url = URL.parse(text);
  if (!url) return 'is not a URL';
  const protocol = url.protocol.slice(0, -1);
  if (protocol !== 'http' && protocol !== 'https') return 'must use http or https';
  if (!url.username) return 'has no public key';
  if (/%(?![0-9a-f]{2})/i.test(url.username)) return 'has a public key with a "%" not followed by two hex digits';
  if (url.search || url.hash) return 'must not have a query or fragment';
  const segments = url.pathname.split('/');
  const projectId = segments.pop() ?? '';
  if (!/^\d+$/.test(projectId)) return 'must end with a numeric project id';
  const path = segments.join('/');
  const host = url.host.toLowerCase();
  const port = url.port === '' ? (protocol === 'https' ? 443 : 80) : Number(url.port);
  const publicKey = url.username;
  if (publicKey.length > MAX_PUBLIC_KEY_CHARS) {
    return `has a public key of ${publicKey.length} characters (URL-escaped); Sentry's keys are 32, at most ${MAX_PUBLIC_KEY_CHARS} are accepted`;
  }
  return {
    protocol,
    publicKey,
    host,
    port,
    path,
    projectId,
    key: `${protocol}://${publicKey}@${host}${path}/${projectId}`,
  };
}

/** Sentry's envelope endpoint for a DSN, with the key in the query as the SDKs send it. */
export function envelopeEndpoint(dsn: Dsn): string {
  return `${dsn.protocol}://${dsn.host}${dsn.path}/api/${dsn.projectId}/envelope/?sentry_version=7&sentry_key=${encodeURIComponent(dsn.publicKey)}`;
}

export function isLoopbackHost(host: string): boolean {
  const hostname = host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname) ||
    hostname === '::1'
  );
}
