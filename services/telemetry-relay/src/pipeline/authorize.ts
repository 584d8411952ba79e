// The envelope header's `dsn` must name an allowed destination (scheme, host, project id and public key
// all equal), so the relay is never an open proxy. It needs the header line alone, so it runs as soon as that arrives.

import { quote, RelayError } from '../core/errors.ts';
import { createDsnAllowlist } from '../envelope/allowlist.ts';
import { type Dsn, isLoopbackHost, MAX_DSN_CHARS, parseDsn } from '../envelope/dsn.ts';

export interface Authorized {
  dsn: Dsn;
  /** Bounded label: the project id of an allowlisted DSN, or "loopback" in the development mode. */
  project: string;
}

export interface AuthorizeOptions {
  allowedDsns: readonly Dsn[];
  /** Development only, with no allowlist: the loopback port(s) a DSN may name (see envelope/allowlist.ts). */
  loopbackPorts: readonly number[];
}

/**
 * Accepted DSN texts remembered, most recently used last. Refused ones are never kept: a client choosing a new DSN
 * per envelope only costs the parse (of at most MAX_DSN_CHARS), never memory.
 */
export const AUTHORIZE_CACHE_SIZE = 1024;
/** The cache's texts together (each at most MAX_DSN_CHARS; ≈100 for Sentry's DSNs). */
export const AUTHORIZE_CACHE_CHARS = 64 * 1024;

export function createAuthorizer(options: AuthorizeOptions): (header: Readonly<Record<string, unknown>>) => Authorized {
  const allowlist = createDsnAllowlist(options);
  /** Accepted texts (the secret or the spelling may differ) → one decision per normalized key. */
  const cache = new Map<string, Authorized>();
  let cachedChars = 0;
  const byKey = new Map<string, Authorized>();

  const decide = (text: string): Authorized | RelayError => {
    const dsn = parseDsn(text);
    if (typeof dsn === 'string') return new RelayError('invalid_dsn', `the envelope header's dsn ${dsn}`);
    const known = byKey.get(dsn.key);
    if (known) return known;
    const listed = allowlist.listed(dsn.key);
    let authorized: Authorized | undefined;
    if (listed) authorized = { dsn: listed, project: listed.projectId };
    else if (allowlist.allowsLoopback(dsn)) authorized = { dsn, project: 'loopback' };
    if (authorized) {
      // Keys of allowed destinations only: the allowlist's, or loopback ports in development.
      if (byKey.size >= AUTHORIZE_CACHE_SIZE) byKey.clear();
      byKey.set(dsn.key, authorized);
      return authorized;
    }
    if (allowlist.loopbackMode && isLoopbackHost(dsn.host)) {
      return new RelayError(
        'dsn_not_allowed',
        `the DSN names port ${dsn.port} on a loopback host; this relay forwards to loopback port(s) ${[...allowlist.loopbackPorts].join(', ')} only`,
      );
    }
    return new RelayError(
      'dsn_not_allowed',
      `the DSN for project ${quote(dsn.projectId, 20)} on ${quote(dsn.host)} with key ${quote(dsn.publicKey)} is not allowed here`,
    );
  };

  const remember = (text: string, authorized: Authorized) => {
    while (
      cache.size > 0 &&
      (cache.size >= AUTHORIZE_CACHE_SIZE || cachedChars + text.length > AUTHORIZE_CACHE_CHARS)
    ) {
      const oldest = cache.keys().next().value as string;
      cache.delete(oldest);
      cachedChars -= oldest.length;
    }
    cache.set(text, authorized);
    cachedChars += text.length;
  };

  // The most recently used DSN and its decision: most envelopes name the DSN the one before named, and it is the
  // cache's newest entry already (no lookup, no reordering). A refusal is kept here only, until the next DSN.
  let lastText: string | undefined;
  let lastResult: Authorized | RelayError | undefined;
  return (header) => {
    const text = header.dsn;
    if (text === undefined) throw new RelayError('missing_dsn', 'the envelope header has no "dsn"');
    if (typeof text !== 'string') throw new RelayError('invalid_dsn', 'the envelope header\'s "dsn" must be a string');
    if (text === lastText && lastResult !== undefined) {
      if (lastResult instanceof RelayError) throw lastResult;
      return lastResult;
    }
    let result: Authorized | RelayError | undefined = cache.get(text);
    if (result) {
      cache.delete(text);
      cache.set(text, result);
    } else {
      result = decide(text);
      if (!(result instanceof RelayError)) remember(text, result);
    }
    // A refused text is held here only while it is the last one seen, and only within the DSN's own bound.
    if (!(result instanceof RelayError) || text.length <= MAX_DSN_CHARS) {
      lastText = text;
      lastResult = result;
    }
    if (result instanceof RelayError) throw result;
    return result;
  };
}
