// Every overlay renders with kustomize and passes both validators; and both validators really catch what they are
// here for (a test that could not fail would prove nothing).
import { describe, expect, it } from 'vitest';
import {
  type K8sObject,
  parseManifests,
  renderings,
  renderOverlay,
  schemaProblems,
  typeProblems,
} from './support/manifests.ts';

describe.each(renderings)('overlay %s', (overlay) => {
  let objects: K8sObject[] = [];

  it('renders with kubectl kustomize', async () => {
    objects = await renderOverlay(overlay);
    const kinds = new Set(objects.map((o) => o.kind));
    const workloads = overlay === 'relay-only' ? ['StatefulSet'] : ['Deployment', 'StatefulSet'];
    for (const kind of [...workloads, 'Service', 'HorizontalPodAutoscaler', 'PodDisruptionBudget']) {
      expect(kinds, kind).toContain(kind);
    }
    for (const kind of ['NetworkPolicy', 'ConfigMap', 'PodMonitor', 'PrometheusRule']) {
      expect(kinds, kind).toContain(kind);
    }
    const edge = overlay === 'ingress' ? ['Ingress'] : ['HTTPRoute', 'BackendTrafficPolicy', 'Namespace'];
    for (const kind of edge) expect(kinds, kind).toContain(kind);
    // The parameters ConfigMap is local-config: its values are copied into objects, it is never applied.
    expect(objects.map((o) => o.metadata.name)).not.toContain('ssr-telemetry-parameters');
  });

  it('passes schema validation (kubernetes-models; prometheus-operator, Gateway API and Envoy Gateway CRDs)', async () => {
    expect(await schemaProblems(objects)).toEqual([]);
  });

  it('passes a strict type check (kubernetes-types + tsc)', async () => {
    expect(await typeProblems(objects, overlay)).toBe('');
  });
});

describe('the validators themselves', () => {
  const broken = parseManifests(`
apiVersion: apps/v1
kind: Deployment
metadata: { name: broken }
spec:
  replicas: "3"
  selector: { matchLabels: { app: x } }
  template:
    metadata: { labels: { app: x } }
    spec:
      containers:
        - image: x:1
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: { name: typo }
spec:
  rules:
    - http:
        paths:
          - { path: /, pathType: Prefixx, backend: { service: { name: web, port: { number: "80" } } } }
---
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata: { name: rules }
spec:
  groups:
    - name: g
      rules: [{ alert: A, expr: 1, for: 5 }]
`);

  const brokenEdge = parseManifests(`
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: route }
spec:
  rules:
    - matches: [{ path: { type: PathPrefixx, value: / } }]
      backendRefs: [{ name: web, port: 80 }]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: { name: limits }
spec:
  targetRefs: [{ group: gateway.networking.k8s.io, kind: HTTPRoute, name: route }]
  rateLimit:
    local:
      rules: [{ limit: { requests: 10, unit: Seconds } }]
  requestBufer: { limit: 1Mi }
`);

  it('schema validation rejects a wrong type, a missing required field, a bad enum and a bad CRD', async () => {
    const problems = await schemaProblems([...broken, ...brokenEdge]);
    expect(problems.join('\n')).toMatch(/Deployment broken.*replicas must be integer/s);
    expect(problems.join('\n')).toMatch(/containers\/0 must have required property name/);
    expect(problems.join('\n')).toMatch(/Ingress typo.*pathType/s);
    expect(problems.join('\n')).toMatch(/PrometheusRule rules/);
    expect(problems.join('\n')).toMatch(/HTTPRoute route.*(PathPrefixx|type)/s);
    expect(problems.join('\n')).toMatch(/BackendTrafficPolicy limits.*(additional properties|unit)/s);
  });

  it('the type check rejects a misspelled field the schemas allow', async () => {
    const typo = parseManifests(`
apiVersion: apps/v1
kind: Deployment
metadata: { name: typo }
spec:
  replica: 3
  selector: { matchLabels: { app: x } }
  template:
    metadata: { labels: { app: x } }
    spec:
      containers: [{ name: x, image: x:1 }]
---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: { name: typo }
spec:
  selector: {}
  podMetricEndpoints: []
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: typo }
spec:
  rules:
    - backendRefs: [{ name: web, port: 80 }]
      timeout: { request: 10s }
`);
    expect(await schemaProblems(typo)).toEqual([]);
    const diagnostics = await typeProblems(typo, 'negative-control');
    expect(diagnostics).toMatch(/replica"?' does not exist in type 'DeploymentSpec'/);
    expect(diagnostics).toMatch(/podMetricEndpoints"?' does not exist in type 'IPodMonitorSpec'/);
    expect(diagnostics).toMatch(/timeout"?' does not exist in type '\w*HTTPRouteRule'/);
  });
});
