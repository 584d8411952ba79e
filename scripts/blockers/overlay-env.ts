// What an overlay gives the web service: its rendered web-config (the environment the pods get) and its public origin.
// The relay alone (deploy/k8s/relay) renders no web-config: then the app it fronts is described by the relay's config
// (its first allowed DSN, its tunnel path) and the host its edge route serves.
import { ReleaseError } from '../release/plan.ts';
import { renderObjects } from '../release/preflight.ts';

interface Rendered {
  kind?: string;
  metadata?: { name?: string };
  data?: Record<string, string>;
  spec?: { hostnames?: string[]; rules?: { host?: string }[] };
}

const configMap = (objects: Rendered[], prefix: string) =>
  objects.find((o) => o.kind === 'ConfigMap' && o.metadata?.name?.startsWith(prefix))?.data;

/** The host the relay's edge route serves: the HTTPRoute's or the Ingress's. */
function relayHost(objects: Rendered[]): string | undefined {
  const route = objects.find(
    (o) => (o.kind === 'HTTPRoute' || o.kind === 'Ingress') && o.metadata?.name === 'telemetry-relay',
  );
  return route?.spec?.hostnames?.[0] ?? route?.spec?.rules?.[0]?.host;
}

export async function overlayWebEnv(dir: string): Promise<{ origin: string; env: Record<string, string> }> {
  const objects = (await renderObjects(dir)) as Rendered[];
  const web = configMap(objects, 'web-config');
  if (web?.PUBLIC_ORIGIN) return { origin: web.PUBLIC_ORIGIN, env: web };
  const relay = configMap(objects, 'telemetry-relay-config');
  const host = relayHost(objects);
  const dsn = relay?.ALLOWED_DSNS?.split(',')[0]?.trim();
  if (web || !relay?.TUNNEL_PATH || !host || !dsn)
    throw new ReleaseError(`${dir} renders no web-config with a PUBLIC_ORIGIN, nor a relay with a route, DSN and path`);
  return { origin: `https://${host}`, env: { SENTRY_DSN: dsn, TUNNEL_PATH: relay.TUNNEL_PATH } };
}
