// The relay deployed alone (deploy/k8s/relay, overlays/relay-only) holds no web object, and the full stack is composed
// from it: every object of the relay's base is in the full stack's unchanged, and what the full stack adds is web's.
// Against an older commit's renderings: DEPLOY_BEFORE=<ref> (compare-before.test.ts, run only then).
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type K8sObject,
  k8sDir,
  kustomize,
  parseManifests,
  type Rendering,
  renderOverlay,
  repoRoot,
} from './support/manifests.ts';
import { substanceOf } from './support/substance.ts';

const idOf = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;

/** Where an object mentions web: its name, a label or selector value, a PromQL `job="web"`, web's metrics. */
function webTraces(objects: K8sObject[]): string[] {
  return objects.flatMap((o) => {
    const text = JSON.stringify(o);
    const found = [
      /^web\b/.test(o.metadata.name) && 'its name',
      /"web"/.test(text) && 'a label, selector or name "web"',
      /job=\\+"web\\+"/.test(text) && 'a query of job="web"',
      /\b(page_requests|web_shed_requests|http_request_duration_seconds)/.test(text) && "web's metrics",
    ].filter((what) => typeof what === 'string');
    return found.map((what) => `${idOf(o)}: ${what}`);
  });
}

/** An object as the full stack's base renders it, minus the label only the full stack sets. */
function withoutPartOf(o: K8sObject): K8sObject {
  const { 'app.kubernetes.io/part-of': _, ...labels } = o.metadata.labels ?? {};
  const metadata = { ...o.metadata, labels };
  if (Object.keys(labels).length === 0) delete (metadata as { labels?: unknown }).labels;
  return { ...o, metadata };
}

describe('the relay alone', () => {
  it.each([
    ['its base', `${k8sDir}relay`],
    ['the relay-only overlay', `${k8sDir}overlays/relay-only`],
  ])('%s renders no web object and nothing that names web', async (_, path) => {
    const objects = parseManifests(await kustomize(path));
    expect(objects.length).toBeGreaterThan(10);
    expect(webTraces(objects)).toEqual([]);
  });

  it('has what a second team runs it with: workload, Service, policies, monitoring, budget, config, route', async () => {
    const kinds = new Set((await renderOverlay('relay-only')).map((o) => o.kind));
    for (const kind of ['StatefulSet', 'Service', 'NetworkPolicy', 'PodMonitor', 'PrometheusRule']) {
      expect(kinds, kind).toContain(kind);
    }
    for (const kind of ['PodDisruptionBudget', 'HorizontalPodAutoscaler', 'ConfigMap', 'HTTPRoute', 'Namespace']) {
      expect(kinds, kind).toContain(kind);
    }
  });

  it('the web check finds web in the full stack (it can fail)', async () => {
    const traces = webTraces(parseManifests(await kustomize(`${k8sDir}base`)));
    for (const id of ['Deployment/web', 'PrometheusRule/web', 'ConfigMap/web-dashboard', 'NetworkPolicy/web']) {
      expect(
        traces.some((t) => t.startsWith(`${id}:`)),
        id,
      ).toBe(true);
    }
  });
});

describe('the full stack, composed from the relay alone', () => {
  it("holds every object of the relay's base unchanged, and adds only web's", async () => {
    const relay = parseManifests(await kustomize(`${k8sDir}relay`));
    const full = parseManifests(await kustomize(`${k8sDir}base`));
    const fullById = new Map(full.map((o) => [idOf(o), o]));
    for (const object of relay) {
      const twin = fullById.get(idOf(object));
      expect(twin, `${idOf(object)} in the full stack`).toBeDefined();
      expect(twin?.metadata.labels?.['app.kubernetes.io/part-of'], idOf(object)).toBe('ssr-telemetry');
      expect(withoutPartOf(twin as K8sObject), idOf(object)).toEqual(object);
    }
    const relayIds = new Set(relay.map(idOf));
    const added = full.filter((o) => !relayIds.has(idOf(o)));
    expect(added.filter((o) => webTraces([o]).length === 0).map(idOf)).toEqual([]);
    // web-config's name ends in its content hash.
    expect(added.map((o) => idOf(o).replace(/^(ConfigMap\/web-config)-\w+$/, '$1')).sort()).toEqual(
      [
        'ConfigMap/web-config',
        'ConfigMap/web-dashboard',
        'ConfigMap/web-prometheus-adapter-rules',
        'Deployment/web',
        'HorizontalPodAutoscaler/web',
        'NetworkPolicy/telemetry-relay-from-web',
        'NetworkPolicy/web',
        'PodDisruptionBudget/web',
        'PodMonitor/web',
        'PrometheusRule/web',
        'Service/web',
        'ServiceAccount/web',
      ].sort(),
    );
  });
});

describe('substance (what a rendering deploys, however its objects are cut)', () => {
  it('is unchanged by pooling the alert groups in one object, changed by a NetworkPolicy rule less', async () => {
    const objects = await renderOverlay('prod');
    const rules = objects.filter((o) => o.kind === 'PrometheusRule') as (K8sObject & { spec: { groups: unknown[] } })[];
    expect(rules.length).toBe(2);
    const pooled = [
      ...objects.filter((o) => o.kind !== 'PrometheusRule'),
      { ...rules[0], spec: { groups: rules.flatMap((r) => r.spec.groups) } } as K8sObject,
    ];
    expect(substanceOf(pooled)).toEqual(substanceOf(objects));
    const lessOpen = objects.map((o) =>
      o.metadata.name === 'telemetry-relay-from-web' ? { ...o, spec: { ...(o.spec as object), ingress: [] } } : o,
    );
    expect(substanceOf(lessOpen)).not.toEqual(substanceOf(objects));
  });
});
