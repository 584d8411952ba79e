// What a rendering does, apart from how its objects are cut: alert groups, dashboard panels (without their place on
// the grid), prometheus-adapter rules and NetworkPolicy rules (each with the pods it selects; policies add up) are
// pooled across objects; every other object is kept whole. Two renderings with equal substance deploy the same
// behaviour, so a restructuring of the manifests can be checked against the tree before it (relay-alone.test.ts).
import { parse } from 'yaml';
import type { K8sObject } from './manifests.ts';

export interface Substance {
  alertGroups: string[];
  panels: string[];
  adapterRules: string[];
  networkRules: string[];
  objects: Record<string, string>;
}

/** JSON with sorted keys, so that equal values compare equal as text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

interface PolicySpec {
  podSelector: unknown;
  policyTypes?: string[];
  ingress?: unknown[];
  egress?: unknown[];
}

export function substanceOf(objects: K8sObject[]): Substance {
  const substance: Substance = { alertGroups: [], panels: [], adapterRules: [], networkRules: [], objects: {} };
  for (const object of objects) {
    const spec = object.spec as Record<string, unknown> | undefined;
    const data = (object.data ?? {}) as Record<string, string>;
    const labels = object.metadata.labels ?? {};
    if (object.kind === 'PrometheusRule') {
      substance.alertGroups.push(...((spec?.groups ?? []) as unknown[]).map(canonical));
    } else if (object.kind === 'ConfigMap' && labels.grafana_dashboard) {
      for (const text of Object.values(data)) {
        const panels = (JSON.parse(text) as { panels: Record<string, unknown>[] }).panels;
        substance.panels.push(...panels.map(({ gridPos: _, ...panel }) => canonical(panel)));
      }
    } else if (object.kind === 'ConfigMap' && labels['app.kubernetes.io/component'] === 'prometheus-adapter-rules') {
      for (const text of Object.values(data)) {
        substance.adapterRules.push(...(parse(text) as { rules: unknown[] }).rules.map(canonical));
      }
    } else if (object.kind === 'NetworkPolicy') {
      const policy = spec as unknown as PolicySpec;
      const rules = [
        ...(policy.ingress ?? []).map((rule) => ['ingress', rule]),
        ...(policy.egress ?? []).map((rule) => ['egress', rule]),
      ];
      // A policy without rules still isolates its pods (default deny): its types are its substance.
      const entries = rules.length > 0 ? rules : [['isolates', [...(policy.policyTypes ?? [])].sort()]];
      substance.networkRules.push(...entries.map((entry) => canonical([policy.podSelector, ...entry])));
    } else {
      substance.objects[`${object.kind}/${object.metadata.name}`] = canonical(object);
    }
  }
  for (const list of [substance.alertGroups, substance.panels, substance.adapterRules, substance.networkRules]) {
    list.sort();
  }
  return substance;
}
