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
 * Where browsers send CSP violation reports. Through the tunnel: `<TUNNEL_PATH>/security?dsn=…` on this host (the
 * relay authorizes the DSN as it does an envelope's); direct: Sentry's security endpoint for the DSN.
 * Either way with Sentry's `sentry_environment` / `sentry_release` parameters.
 */
export function securityReportUrl(options: ReportOptions): string {
  const query = new URLSearchParams();
  const { origin, prefix, projectId, publicKey } = dsnParts(options.dsn);
  let base: string;
  if (options.tunnelPath) {
    base = `${options.tunnelPath.replace(/\/$/, '')}/security`;
    // The DSN as the browser SDK writes it into envelope headers: without a secret.
    query.set('dsn', `${origin.replace('//', `//${publicKey}@`)}${prefix}/${projectId}`);
  } else {
    base = `${origin}${prefix}/api/${projectId}/security/`;
    query.set('sentry_key', decodeURIComponent(publicKey));
  }
  query.set('sentry_environment', options.environment);
  if (options.release) query.set('sentry_release', options.release);
  return `${base}?${query}`;
}
