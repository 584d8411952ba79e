// Where each kind of telemetry goes, derived from the configuration in one place: the browser SDK's tunnel (or the
// DSN's intake in direct mode), the Node SDK's envelopes (sentry-config.ts), and CSP violation reports. No Sentry
// import here: instrument.ts reads it before the SDK loads.

/** The URL the tunnel path forwards to: a target with a path is used as it is, a bare origin gets the path. */
export function tunnelDestination(path: string, target: URL): URL {
  return target.pathname === '/' ? new URL(path, target) : target;
}

interface DsnParts {
  origin: string;
  /** Path prefix before the project id ('' normally). */
  prefix: string;
  projectId: string;
  publicKey: string;
}

function dsnParts(dsn: string): DsnParts {
  const url = new URL(dsn);
  const segments = url.pathname.split('/');
  const projectId = segments.pop() ?? '';
  return { origin: url.origin, prefix: segments.join('/'), projectId, publicKey: url.username };
}

/** The origin the browser SDK posts to in direct mode (TUNNEL_PATH=off): the DSN's. */
export const dsnOrigin = (dsn: string): string => dsnParts(dsn).origin;

export interface ReportOptions {
  dsn: string;
  /** The tunnel path (reports go to `<path>/security` on this host), or undefined: Sentry's endpoint itself. */
  tunnelPath: string | undefined;
  environment: string;
  release: string | undefined;
}

/**
 * Where browsers send CSP violation reports. Through the tunnel: `<TUNNEL_PATH>/r?k=…&e=…&r=…` on this host, the DSN
 * (`k`, base64url) authorized by the relay as an envelope's is, the environment and release in neutral names: nothing
 * in the URL a filter list could name for every deployment (decision 048). Direct: Sentry's security endpoint for the
 * DSN, with its `sentry_environment` / `sentry_release` parameters.
 */
export function securityReportUrl(options: ReportOptions): string {
  const query = new URLSearchParams();
  const { origin, prefix, projectId, publicKey } = dsnParts(options.dsn);
  if (options.tunnelPath) {
    // The DSN as the browser SDK writes it into envelope headers: without a secret.
    const dsn = `${origin.replace('//', `//${publicKey}@`)}${prefix}/${projectId}`;
    query.set('k', Buffer.from(dsn).toString('base64url'));
    query.set('e', options.environment);
    if (options.release) query.set('r', options.release);
    return `${options.tunnelPath.replace(/\/$/, '')}/r?${query}`;
  }
  query.set('sentry_key', decodeURIComponent(publicKey));
  query.set('sentry_environment', options.environment);
  if (options.release) query.set('sentry_release', options.release);
  return `${origin}${prefix}/api/${projectId}/security/?${query}`;
}
