// Deployment policy, checked on the rendered overlays: what every workload must have to run safely, scale and
// shut down without losing requests. Each rule names the object that breaks it.

import type { Deployment, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { HorizontalPodAutoscaler } from 'kubernetes-types/autoscaling/v2.js';
import type { ConfigMap, Container, PodSpec, Service } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { type K8sObject, ofKind, type Rendering, renderings, renderOverlay } from './support/manifests.ts';

type Workload = (Deployment | StatefulSet) & K8sObject;

const matches = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  selector !== undefined &&
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

function podSpec(workload: Workload): PodSpec {
  const spec = workload.spec?.template.spec;
  if (!spec) throw new Error(`${workload.kind} ${workload.metadata.name} has no pod spec`);
  return spec;
}

function containersOf(workload: Workload): Container[] {
  const spec = podSpec(workload);
  return [...spec.containers, ...(spec.initContainers ?? [])];
}

describe.each(renderings)('policy, overlay %s', (overlay: Rendering) => {
  let objects: K8sObject[];
  let workloads: Workload[];
  beforeAll(async () => {
    objects = await renderOverlay(overlay);
    workloads = [...ofKind<Deployment>(objects, 'Deployment'), ...ofKind<StatefulSet>(objects, 'StatefulSet')];
  });

  it('has both services as workloads (the relay alone: only the relay)', () => {
    const expected = overlay === 'relay-only' ? ['telemetry-relay'] : ['telemetry-relay', 'web'];
    expect(workloads.map((w) => w.metadata.name).sort()).toEqual(expected);
  });

  it('gives every container CPU and memory requests and limits', () => {
    for (const w of workloads) {
      for (const c of containersOf(w)) {
        for (const kind of ['requests', 'limits'] as const) {
          expect(c.resources?.[kind]?.cpu, `${w.metadata.name}/${c.name} ${kind}.cpu`).toBeTypeOf('string');
          expect(c.resources?.[kind]?.memory, `${w.metadata.name}/${c.name} ${kind}.memory`).toBeTypeOf('string');
        }
      }
    }
  });

  it('probes every container: startup and liveness on /healthz, readiness on /readyz, on a declared port', () => {
    for (const w of workloads) {
      for (const c of podSpec(w).containers) {
        const where = `${w.metadata.name}/${c.name}`;
        const ports = new Set((c.ports ?? []).flatMap((p) => [p.name, p.containerPort]));
        expect(c.startupProbe?.httpGet?.path, `${where} startupProbe`).toBe('/healthz');
        expect(c.livenessProbe?.httpGet?.path, `${where} livenessProbe`).toBe('/healthz');
        expect(c.readinessProbe?.httpGet?.path, `${where} readinessProbe`).toBe('/readyz');
        for (const probe of [c.startupProbe, c.livenessProbe, c.readinessProbe]) {
          expect(ports.has(probe?.httpGet?.port), `${where} probe port ${probe?.httpGet?.port}`).toBe(true);
        }
      }
    }
  });

  it('runs every container non-root, read-only, without privileges, under the runtime seccomp profile', () => {
    for (const w of workloads) {
      const pod = podSpec(w);
      expect(pod.securityContext?.runAsNonRoot, `${w.metadata.name} runAsNonRoot`).toBe(true);
      expect(pod.securityContext?.seccompProfile?.type, `${w.metadata.name} seccomp`).toBe('RuntimeDefault');
      expect(pod.automountServiceAccountToken, `${w.metadata.name} automountServiceAccountToken`).toBe(false);
      for (const c of containersOf(w)) {
        const where = `${w.metadata.name}/${c.name}`;
        expect(c.securityContext?.readOnlyRootFilesystem, `${where} readOnlyRootFilesystem`).toBe(true);
        expect(c.securityContext?.allowPrivilegeEscalation, `${where} allowPrivilegeEscalation`).toBe(false);
        expect(c.securityContext?.capabilities?.drop, `${where} drops`).toEqual(['ALL']);
        expect(c.securityContext?.privileged ?? false, `${where} privileged`).toBe(false);
        // A read-only root needs a writable /tmp.
        expect(
          c.volumeMounts?.some((m) => m.mountPath === '/tmp'),
          `${where} /tmp`,
        ).toBe(true);
      }
    }
  });

  it('never uses latest or an untagged image', () => {
    for (const w of workloads) {
      for (const c of containersOf(w)) {
        const image = c.image ?? '';
        const tag = image.includes('@') ? image.split('@')[1] : image.split('/').pop()?.split(':')[1];
        expect(tag, `${w.metadata.name}/${c.name} image ${image}`).toBeTruthy();
        expect(tag, `${w.metadata.name}/${c.name} image ${image}`).not.toBe('latest');
      }
    }
  });

  it('gives every workload an autoscaler (autoscaling/v2, its own load signal plus CPU) and a disruption budget', () => {
    const hpas = ofKind<HorizontalPodAutoscaler>(objects, 'HorizontalPodAutoscaler');
    const pdbs = ofKind<PodDisruptionBudget>(objects, 'PodDisruptionBudget');
    for (const w of workloads) {
      const hpa = hpas.find(
        (h) => h.spec?.scaleTargetRef.kind === w.kind && h.spec.scaleTargetRef.name === w.metadata.name,
      );
      expect(hpa, `HPA for ${w.kind} ${w.metadata.name}`).toBeDefined();
      expect(hpa?.apiVersion).toBe('autoscaling/v2');
      // Its own signal (a metric of the service's, through the custom or external metrics API), and CPU as the
      // backstop for load that signal does not see.
      const metrics = hpa?.spec?.metrics ?? [];
      const ownSignals = metrics.filter((m) => m.type !== 'Resource' && m.type !== 'ContainerResource');
      expect(ownSignals.length, `${w.metadata.name} HPA: a Pods, Object or External metric`).toBeGreaterThan(0);
      expect(
        metrics.some((m) => m.type === 'Resource' && m.resource?.name === 'cpu'),
        `${w.metadata.name} HPA: a CPU backstop`,
      ).toBe(true);
      expect(hpa?.spec?.maxReplicas).toBeGreaterThanOrEqual(hpa?.spec?.minReplicas ?? 1);
      const labels = w.spec?.template.metadata?.labels;
      const pdb = pdbs.find((p) => matches(p.spec?.selector?.matchLabels, labels));
      expect(pdb, `PDB for ${w.metadata.name}`).toBeDefined();
    }
  });

  it('matches terminationGracePeriodSeconds to the preStop delay and the service shutdown grace', () => {
    const configMaps = ofKind<ConfigMap>(objects, 'ConfigMap');
    for (const w of workloads) {
      const pod = podSpec(w);
      const container = pod.containers[0];
      const configName = container?.envFrom?.find((e) => e.configMapRef)?.configMapRef?.name;
      const config = configMaps.find((c) => c.metadata.name === configName)?.data ?? {};
      const graceMs = Number(config.SHUTDOWN_GRACE_MS);
      const drainMs = Number(config.SHUTDOWN_DRAIN_DELAY_MS ?? 0);
      const preStop = container?.lifecycle?.preStop?.sleep?.seconds ?? 0;
      expect(graceMs, `${w.metadata.name} SHUTDOWN_GRACE_MS`).toBeGreaterThan(0);
      expect(preStop, `${w.metadata.name} preStop sleep`).toBeGreaterThan(0);
      // The kubelet's clock starts before preStop: it must cover preStop + drain delay + grace, with a margin.
      expect(pod.terminationGracePeriodSeconds, `${w.metadata.name} terminationGracePeriodSeconds`).toBeGreaterThan(
        preStop + (drainMs + graceMs) / 1000,
      );
    }
  });

  it('spreads every workload over zones and nodes', () => {
    for (const w of workloads) {
      const keys = podSpec(w).topologySpreadConstraints?.map((t) => t.topologyKey);
      expect(keys, w.metadata.name).toEqual(
        expect.arrayContaining(['topology.kubernetes.io/zone', 'kubernetes.io/hostname']),
      );
    }
  });

  it('puts a NetworkPolicy in front of every Service, behind a default deny', () => {
    const policies = ofKind<NetworkPolicy>(objects, 'NetworkPolicy');
    const denyAll = policies.find(
      (p) =>
        Object.keys(p.spec?.podSelector.matchLabels ?? {}).length === 0 &&
        !p.spec?.podSelector.matchExpressions &&
        p.spec?.ingress === undefined &&
        p.spec?.egress === undefined &&
        p.spec?.policyTypes?.includes('Ingress') &&
        p.spec?.policyTypes?.includes('Egress'),
    );
    expect(denyAll, 'a default-deny NetworkPolicy for ingress and egress').toBeDefined();
    for (const service of ofKind<Service>(objects, 'Service')) {
      const covered = policies.some(
        (p) => p !== denyAll && matches(p.spec?.podSelector.matchLabels, service.spec?.selector),
      );
      expect(covered, `NetworkPolicy selecting the pods of Service ${service.metadata.name}`).toBe(true);
    }
  });

  it('scrapes both services on their metrics port', () => {
    const monitors = objects.filter((o) => o.kind === 'PodMonitor') as (K8sObject & {
      spec: { selector: { matchLabels?: Record<string, string> }; podMetricsEndpoints: { port?: string }[] };
    })[];
    for (const w of workloads) {
      const monitor = monitors.find((m) => matches(m.spec.selector.matchLabels, w.spec?.template.metadata?.labels));
      expect(monitor, `PodMonitor for ${w.metadata.name}`).toBeDefined();
      const ports = podSpec(w).containers.flatMap((c) => c.ports ?? []);
      expect(ports.find((p) => p.name === monitor?.spec.podMetricsEndpoints[0]?.port)?.containerPort).toBe(9464);
    }
  });
});

describe('environment differences', () => {
  it('dev runs one replica of each service', async () => {
    const objects = await renderOverlay('dev');
    for (const w of [...ofKind<Deployment>(objects, 'Deployment'), ...ofKind<StatefulSet>(objects, 'StatefulSet')]) {
      expect(w.spec?.replicas, w.metadata.name).toBe(1);
    }
    for (const hpa of ofKind<HorizontalPodAutoscaler>(objects, 'HorizontalPodAutoscaler')) {
      expect([hpa.spec?.minReplicas, hpa.spec?.maxReplicas], hpa.metadata.name).toEqual([1, 1]);
    }
  });

  it('prod pins images to a release tag or digest and runs at least 3 of each', async () => {
    const objects = await renderOverlay('prod');
    const workloads = [...ofKind<Deployment>(objects, 'Deployment'), ...ofKind<StatefulSet>(objects, 'StatefulSet')];
    for (const w of workloads) {
      expect(w.spec?.replicas, w.metadata.name).toBeGreaterThanOrEqual(3);
      for (const c of w.spec?.template.spec?.containers ?? []) {
        expect(c.image, `${w.metadata.name} image`).toMatch(/(:\d+\.\d+\.\d+[\w.-]*|@sha256:[0-9a-f]{64})$/);
      }
    }
    for (const hpa of ofKind<HorizontalPodAutoscaler>(objects, 'HorizontalPodAutoscaler')) {
      expect(hpa.spec?.minReplicas, hpa.metadata.name).toBeGreaterThanOrEqual(3);
      expect(hpa.spec?.maxReplicas, hpa.metadata.name).toBeGreaterThan(hpa.spec?.minReplicas ?? 0);
    }
  });
});
