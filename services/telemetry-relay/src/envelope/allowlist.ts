// The DSNs the relay may forward for, decided in one place so the tunnel and replay agree.
import { type Dsn, isLoopbackHost } from './dsn.ts';

/**
 * Which DSNs this relay forwards for: the allowlisted ones or, in development with no allowlist, a loopback DSN on a
 * listed port (the local viewer's; any port would let a page make the relay POST to every local service). One rule
 * for the tunnel's authorizer and for replay's re-check of spooled rows.
 */
export interface DsnAllowlist {
  /** The allowlisted DSN with this key (the configured one, secret and all), if any. */
  listed(key: string): Dsn | undefined;
  /** Loopback mode is on: no allowlist and at least one loopback port. */
  readonly loopbackMode: boolean;
  readonly loopbackPorts: ReadonlySet<number>;
  /** A DSN on a loopback host is one loopback mode lets through. */
  allowsLoopback(dsn: Dsn): boolean;
}

export function createDsnAllowlist(options: {
  allowedDsns: readonly Dsn[];
  loopbackPorts: readonly number[];
}): DsnAllowlist {
  const allowed = new Map(options.allowedDsns.map((dsn) => [dsn.key, dsn]));
  const loopbackPorts = new Set(allowed.size === 0 ? options.loopbackPorts : []);
  return {
    listed: (key) => allowed.get(key),
    loopbackMode: loopbackPorts.size > 0,
    loopbackPorts,
    allowsLoopback: (dsn) => loopbackPorts.size > 0 && isLoopbackHost(dsn.host) && loopbackPorts.has(dsn.port),
  };
}
