// Alert policy on the rendered overlays: every alert has a severity, a summary and a description, and links its
// runbook section in docs/runbook.md through the overlay's one RUNBOOK_BASE_URL parameter.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { k8sDir, type Overlay, overlays, renderOverlay, repoRoot } from './support/manifests.ts';

interface Rule {
  alert?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** A value the overlay's operator sets (operator.env, merged into ssr-telemetry-parameters). */
function parameter(overlay: Overlay, name: string): string | undefined {
  const text = readFileSync(`${k8sDir}overlays/${overlay}/operator.env`, 'utf8');
  return text
    .split('\n')
    .find((l) => l.startsWith(`${name}=`))
    ?.slice(name.length + 1);
}

const anchors = new Set(
  [...readFileSync(`${repoRoot}docs/runbook.md`, 'utf8').matchAll(/^#{2,4} (.+)$/gm)].map((m) =>
    m[1]
      ?.toLowerCase()
      .replace(/[^a-z0-9 -]/g, '')
      .replaceAll(' ', '-'),
  ),
);

describe('the dashboard and the alerts', () => {
  it('compute the upstream failure ratio over the same deliveries (429s from upstream excluded from both)', () => {
    const rules = readFileSync(`${k8sDir}base/monitoring/prometheusrule.yaml`, 'utf8');
    const dashboard = readFileSync(`${k8sDir}base/monitoring/dashboards/ssr-telemetry.json`, 'utf8');
    const failedRatio = [...JSON.stringify(JSON.parse(dashboard)).matchAll(/"expr":("(?:[^"\\]|\\.)*")/g)]
      .map((m) => JSON.parse(m[1] ?? '""') as string)
      .filter((expr) => expr.includes('relay_upstream_requests_total') && expr.includes('outcome="failed"'));
    expect(failedRatio.length).toBeGreaterThan(0);
    for (const expr of failedRatio) expect(expr).toContain('outcome!="rate_limited"');
    expect(rules).toContain('relay_upstream_requests_total{outcome!="rate_limited"}');
  });
});

describe.each(overlays)('alerts, overlay %s', (overlay) => {
  it('give every alert a severity, a summary, a description and its docs/runbook.md section from RUNBOOK_BASE_URL', async () => {
    const base = parameter(overlay, 'RUNBOOK_BASE_URL');
    expect(base, 'RUNBOOK_BASE_URL in the overlay').toMatch(/^https:\/\//);
    const rules = (await renderOverlay(overlay))
      .filter((o) => o.kind === 'PrometheusRule')
      .flatMap((o) => (o.spec as { groups: { rules: Rule[] }[] }).groups)
      .flatMap((g) => g.rules)
      .filter((r) => r.alert);
    expect(rules.map((r) => r.alert)).toEqual(
      expect.arrayContaining([
        'TelemetryRelaySpoolGrowing',
        'TelemetryRelaySpoolOld',
        'TelemetryRelayUpstreamErrors',
        'TelemetryRelayRejectedSpike',
        'TelemetryRelayInternalErrors',
        'TelemetryRelayScrapeMissing',
        'WebHigh5xxRate',
        'WebHighLatency',
        'WebScrapeMissing',
      ]),
    );
    for (const rule of rules) {
      expect(rule.labels?.severity, rule.alert).toMatch(/^(warning|critical)$/);
      expect(rule.annotations?.summary, `${rule.alert} summary`).toBeTruthy();
      expect(rule.annotations?.description?.length, `${rule.alert} description`).toBeGreaterThan(40);
      const [url, anchor] = rule.annotations?.runbook_url?.split('#') ?? [];
      expect(url, `${rule.alert}: runbook_url from RUNBOOK_BASE_URL`).toBe(base);
      expect(anchor, `${rule.alert}: anchor is the alert's name`).toBe(rule.alert?.toLowerCase());
      expect(anchors.has(anchor), `${rule.alert}: docs/runbook.md heading for #${anchor}`).toBe(true);
    }
  });
});
