// Whether a spooled row, accepted possibly days and a redeploy ago, may still go where it was going: its DSN still
// allowed and its URL still the one that DSN's envelopes go to now (UPSTREAM_URL, or the DSN's envelope endpoint).
import { createDsnAllowlist } from '../envelope/allowlist.ts';
import { type Dsn, envelopeEndpoint, parseDsn } from '../envelope/dsn.ts';

export interface DestinationConfig {
  allowedDsns: readonly Dsn[];
  /** Development only, with no allowlist: loopback DSNs on these ports. */
  loopbackPorts: readonly number[];
  upstreamUrl: URL | undefined;
}

export function createDestinationCheck(
  config: DestinationConfig,
): (target: { url: string; dsnKey: string }) => boolean {
  const allowlist = createDsnAllowlist(config);
  const dsnFor = (key: string): Dsn | undefined => {
    const listed = allowlist.listed(key);
    if (listed || !allowlist.loopbackMode) return listed;
    const dsn = parseDsn(key); // a DSN's key is itself a DSN (without the secret)
    return typeof dsn !== 'string' && allowlist.allowsLoopback(dsn) ? dsn : undefined;
  };
  return ({ url, dsnKey }) => {
    const dsn = dsnFor(dsnKey);
    return dsn !== undefined && url === (config.upstreamUrl?.href ?? envelopeEndpoint(dsn));
  };
}
