// A Prometheus outside Kubernetes configured from the rendered manifests, so that what it scrapes and evaluates
// cannot drift from what the cluster's Prometheus Operator would: each PodMonitor becomes a static scrape job (its
// job label, path and pod labels as the operator sets them), and the PrometheusRules' specs make the rule file.
// Used by the e2e Prometheus suite (real processes) and checked against the compose stack's config (deploy/test).

/** The slice of a rendered object this module reads (deploy/test/support/manifests.ts has the full type). */
export interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: unknown;
  [field: string]: unknown;
}

interface PodMonitorSpec {
  jobLabel?: string;
  selector: { matchLabels?: Record<string, string> };
  podMetricsEndpoints: { port?: string; path?: string; interval?: string }[];
}

interface WorkloadSpec {
  template: { metadata?: { labels?: Record<string, string> } };
}

export interface ScrapeJob {
  job_name: string;
  metrics_path: string;
  scrape_interval?: string;
  static_configs: { targets: string[]; labels: Record<string, string> }[];
}

export interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
export interface RuleGroup {
  name: string;
  rules: Rule[];
}

/** The workload (Deployment or StatefulSet) whose pods a PodMonitor selects. */
function workloadOf(objects: Manifest[], monitor: Manifest): Manifest & { spec: WorkloadSpec } {
  const wanted = Object.entries((monitor.spec as PodMonitorSpec).selector.matchLabels ?? {});
  const found = objects.filter(
    (o) =>
      (o.kind === 'Deployment' || o.kind === 'StatefulSet') &&
      wanted.every(([k, v]) => (o.spec as WorkloadSpec).template.metadata?.labels?.[k] === v),
  );
  if (found.length !== 1) throw new Error(`PodMonitor ${monitor.metadata.name} selects ${found.length} workloads`);
  return found[0] as Manifest & { spec: WorkloadSpec };
}

/**
 * One static job per PodMonitor endpoint. `addressOf` gives the host:port that stands in for the pods of a workload
 * (by its name); the job is the pods' `jobLabel` value, and `namespace`/`pod` are set as the operator's relabelling
 * would (one pod, `<workload>-0`). `interval` overrides the endpoints' own (a test scrapes faster).
 */
export function scrapeJobs(
  objects: Manifest[],
  addressOf: (workload: string) => string,
  interval?: string,
): ScrapeJob[] {
  return objects
    .filter((o) => o.kind === 'PodMonitor')
    .flatMap((monitor) => {
      const spec = monitor.spec as PodMonitorSpec;
      const workload = workloadOf(objects, monitor);
      const podLabels = workload.spec.template.metadata?.labels ?? {};
      const job = spec.jobLabel ? podLabels[spec.jobLabel] : undefined;
      if (!job) throw new Error(`PodMonitor ${monitor.metadata.name}: its pods have no ${spec.jobLabel} label`);
      return spec.podMetricsEndpoints.map((endpoint) => ({
        job_name: job,
        metrics_path: endpoint.path ?? '/metrics',
        scrape_interval: interval ?? endpoint.interval ?? '30s',
        static_configs: [
          {
            targets: [addressOf(workload.metadata.name)],
            labels: { namespace: workload.metadata.namespace ?? 'default', pod: `${workload.metadata.name}-0` },
          },
        ],
      }));
    });
}

/** The PrometheusRules' groups, the relay's then web's (each spec is a Prometheus rule file as it stands). */
export function ruleGroups(objects: Manifest[]): RuleGroup[] {
  const rules = objects.filter((o) => o.kind === 'PrometheusRule');
  if (rules.length === 0) throw new Error('expected a PrometheusRule, found none');
  return rules.flatMap((rule) => (rule.spec as { groups: RuleGroup[] }).groups);
}

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400 };

export function durationSeconds(text: string): number {
  let total = 0;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  if (parts.map((p) => p[0]).join('') !== text) throw new Error(`not a Prometheus duration: ${text}`);
  for (const [, n = '0', unit = 's'] of parts) total += Number(n) * (UNIT_SECONDS[unit] ?? 1);
  return total;
}

const asDuration = (seconds: number) => `${Math.max(1, Math.round(seconds * 1000))}ms`;

/**
 * The rules with time divided by `factor`, for a test that cannot wait for production's windows: every `for:`,
 * every range selector `[5m]`, and every threshold compared with an age in seconds (`…_age_seconds …) > 3600`).
 * Latency thresholds (`> 2` on a quantile) and ratios stay as they are: they are not waiting times.
 */
export function scaleRules(groups: RuleGroup[], factor: number): RuleGroup[] {
  const scale = (seconds: number) => seconds / factor;
  return groups.map((group) => ({
    ...group,
    rules: group.rules.map((rule) => {
      if (/\[[^\]]*:/.test(rule.expr)) throw new Error(`${rule.alert ?? rule.record}: subqueries are not scaled`);
      const expr = rule.expr
        .replace(/\[([\dsmhd.]+)\]/g, (_, range: string) => `[${asDuration(scale(durationSeconds(range)))}]`)
        .replace(
          /(_age_seconds\b[^><]*?\)*\s*>\s*)(\d+(?:\.\d+)?)/g,
          (_, before: string, n: string) => `${before}${scale(Number(n))}`,
        );
      return { ...rule, expr, ...(rule.for ? { for: asDuration(scale(durationSeconds(rule.for))) } : {}) };
    }),
  }));
}
