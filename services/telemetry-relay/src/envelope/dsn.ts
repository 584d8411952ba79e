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

/** Parses a DSN, or returns a message saying what is wrong with it (it never throws). */
export function parseDsn(text: string): Dsn | string {
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
