// The default tunnel path, derived from the DSN as SDK 11's `tunnel: true` does (@sentry/core's getTunnelPath: FNV-1a
// 32 of the canonical DSN, base 36): the services and other apps agree without configuration, and no filter list can
// name one path for every deployment (decision 048). Without the SDK: the relay must not load it.
const DSN = /^(?:(\w+):)\/\/(?:(\w+)(?::(\w+)?)?@)((?:\[[:.%\w]+\]|[\w.-]+))(?::(\d+))?\/(.+)/;

/** The DSN as the SDK writes it back (dsnToString): no secret, no trailing slash, the project id's digits. */
function canonicalDsn(dsn: string): string | undefined {
  const match = DSN.exec(dsn);
  if (!match) return undefined;
  const [, protocol, publicKey, , host, port = '', rest = ''] = match;
  const parts = rest.split('/');
  const project = /^\d+/.exec(parts.pop() ?? '')?.[0];
  if ((protocol !== 'http' && protocol !== 'https') || !project) return undefined;
  const path = parts.join('/');
  return `${protocol}://${publicKey}@${host}${port ? `:${port}` : ''}/${path ? `${path}/` : ''}${project}`;
}

function fnv1a32(text: string): number {
  let hash = 2166136261;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 16777619);
  }
  return hash >>> 0;
}

/** `/<base 36 hash>` for a valid DSN, undefined otherwise. */
export function tunnelPathOf(dsn: string): string | undefined {
  const canonical = canonicalDsn(dsn);
  return canonical === undefined ? undefined : `/${fnv1a32(canonical).toString(36)}`;
}
