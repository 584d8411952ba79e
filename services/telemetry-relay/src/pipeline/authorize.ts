import { createDsnAllowlist } from '../envelope/allowlist.ts';
import { type Dsn, isLoopbackHost, parseDsn } from '../envelope/dsn.ts';
import { RelayError } from '../errors.ts';

// Stage 3: the envelope header's `dsn` must name an allowed destination (scheme, host, project id and public key
// all equal), so the relay is never an open proxy. It needs the header line alone, so it runs as soon as that arrives.

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

/** DSN strings whose decision is remembered, most recently used last; junk DSNs cannot keep legit ones out. */
export const AUTHORIZE_CACHE_SIZE = 1024;

export function createAuthorizer(options: AuthorizeOptions): (header: Readonly<Record<string, unknown>>) => Authorized {
  const allowlist = createDsnAllowlist(options);
  const cache = new Map<string, Authorized | RelayError>();

  const decide = (text: string): Authorized | RelayError => {
    const dsn = parseDsn(text);
    if (typeof dsn === 'string') return new RelayError('invalid_dsn', `the envelope header's dsn ${dsn}`);
    const listed = allowlist.listed(dsn.key);
    if (listed) return { dsn: listed, project: listed.projectId };
    if (allowlist.allowsLoopback(dsn)) return { dsn, project: 'loopback' };
    if (allowlist.loopbackMode && isLoopbackHost(dsn.host)) {
      return new RelayError(
        'dsn_not_allowed',
        `the DSN names port ${dsn.port} on a loopback host; this relay forwards to loopback port(s) ${[...allowlist.loopbackPorts].join(', ')} only`,
      );
    }
    return new RelayError(
      'dsn_not_allowed',
      `the DSN for project ${dsn.projectId} on ${dsn.host} with key ${dsn.publicKey} is not allowed here`,
    );
  };

  // The most recently used DSN and its decision: most envelopes name the DSN the one before named, and it is the
  // cache's newest entry already (no lookup, no reordering).
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
    let result = cache.get(text);
    if (result) {
      cache.delete(text);
    } else {
      result = decide(text);
      if (cache.size >= AUTHORIZE_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    }
    cache.set(text, result);
    lastText = text;
    lastResult = result;
    if (result instanceof RelayError) throw result;
    return result;
  };
}
