// What an overlay gives the web service: its rendered web-config (the environment the pods get) and its public origin.
import { ReleaseError } from '../release/plan.ts';
import { renderObjects } from '../release/preflight.ts';

interface ConfigMap {
  kind?: string;
  metadata?: { name?: string };
  data?: Record<string, string>;
}

export async function overlayWebEnv(dir: string): Promise<{ origin: string; env: Record<string, string> }> {
  const objects = (await renderObjects(dir)) as ConfigMap[];
  const web = objects.find((o) => o.kind === 'ConfigMap' && o.metadata?.name?.startsWith('web-config'))?.data;
  if (!web?.PUBLIC_ORIGIN) throw new ReleaseError(`${dir} renders no web-config with a PUBLIC_ORIGIN`);
  return { origin: web.PUBLIC_ORIGIN, env: web };
}
