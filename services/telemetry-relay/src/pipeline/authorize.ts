import { type Dsn, isLoopbackHost, parseDsn } from '../envelope/dsn.ts';
import type { Envelope } from '../envelope/types.ts';
import { RelayError } from './errors.ts';

/**
 * Stage 3: the envelope header's `dsn` must name an allowed destination (scheme, host, project id and public key all
 * equal), so the relay is never an open proxy. Returns the DSN to forward to and the metrics label of its project.
 */

export interface Authorized {
  dsn: Dsn;
  /** Bounded label: the project id of an allowlisted DSN, or "loopback" in the development mode. */
  project: string;
}

export interface AuthorizeOptions {
  allowedDsns: readonly Dsn[];
  /** Development only: with no allowlist, accept any DSN whose host is loopback. */
  allowLoopbackDsns: boolean;
}

export function createAuthorizer(options: AuthorizeOptions): (envelope: Envelope) => Authorized {
  const allowed = new Map(options.allowedDsns.map((dsn) => [dsn.key, dsn]));
  const loopbackMode = allowed.size === 0 && options.allowLoopbackDsns;
  // The same DSN string arrives on every request: parse it once.
  const cache = new Map<string, Authorized | RelayError>();

  const decide = (text: string): Authorized | RelayError => {
    const dsn = parseDsn(text);
    if (typeof dsn === 'string') return new RelayError('invalid_dsn', `the envelope header's dsn ${dsn}`);
    const listed = allowed.get(dsn.key);
    if (listed) return { dsn: listed, project: listed.projectId };
    if (loopbackMode && isLoopbackHost(dsn.host)) return { dsn, project: 'loopback' };
    return new RelayError(
      'dsn_not_allowed',
      `the DSN for project ${dsn.projectId} on ${dsn.host} with key ${dsn.publicKey} is not allowed here`,
    );
  };

  return (envelope) => {
    const text = envelope.header.dsn;
    if (text === undefined) throw new RelayError('missing_dsn', 'the envelope header has no "dsn"');
    if (typeof text !== 'string') throw new RelayError('invalid_dsn', 'the envelope header\'s "dsn" must be a string');
    let result = cache.get(text);
    if (!result) {
      result = decide(text);
      if (cache.size < 1000) cache.set(text, result);
    }
    if (result instanceof RelayError) throw result;
    return result;
  };
}
