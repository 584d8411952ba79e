// The compose stack's Prometheus (deploy/prometheus) against the manifests: its jobs are the PodMonitors' as
// scrapeJobs derives them, its rule file (cut from the two PrometheusRules by the Dockerfile) holds the rendered rules,
// and promtool accepts both. The e2e suites run them: e2e/observability (processes), e2e/containers/compose.test.ts.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type Manifest, type RuleGroup, ruleGroups, scaleRules, scrapeJobs } from '../prometheus/config.ts';
import { type K8sObject, renderOverlay, repoRoot } from './support/manifests.ts';
import { promtool } from './support/promql.ts';

const dir = fileURLToPath(new URL('../.cache/prometheus-config/', import.meta.url));
const read = (path: string) => readFileSync(`${repoRoot}${path}`, 'utf8');

/** What the Dockerfile's sed does: the relay's lines after `spec:`, then web's after `groups:`, two spaces less indented. */
function ruleFileOf(relayRule: string, webRule: string): string {
  const relay = relayRule.split('\n');
  const web = webRule.split('\n');
  return [...relay.slice(relay.indexOf('spec:') + 1), ...web.slice(web.indexOf('  groups:') + 1)]
    .map((line) => line.replace(/^ {2}/, ''))
    .join('\n');
}

/** Rules as Prometheus evaluates them: runbook links are the overlays' to set, so they are left out. */
const evaluated = (groups: RuleGroup[]) =>
  groups.map((g) => ({
    ...g,
    rules: g.rules.map(({ annotations: { runbook_url: _, ...annotations } = {}, ...rule }) => ({
      ...rule,
      annotations,
    })),
  }));

describe('the compose Prometheus (deploy/prometheus)', () => {
  let dev: K8sObject[];
  let config: { rule_files: string[]; scrape_configs: unknown[] };
  beforeAll(async () => {
    dev = await renderOverlay('dev');
    config = parse(read('deploy/prometheus/compose.yml'));
  });

  it("scrapes the dev overlay's PodMonitors, as static jobs on the compose services' ports", () => {
    const compose = parse(read('docker-compose.yml'), { merge: true }) as {
      services: Record<string, { environment: { PORT: number } }>;
    };
    const composeService: Record<string, string> = { web: 'web', 'telemetry-relay': 'relay' };
    const addressOf = (workload: string) => {
      const service = composeService[workload] ?? workload;
      return `${service}:${compose.services[service]?.environment.PORT}`;
    };
    expect(config.scrape_configs).toEqual(scrapeJobs(dev as Manifest[], addressOf, '5s'));
  });

  it("evaluates the PrometheusRule's rules, and promtool accepts the config with them", async () => {
    const rules = parse(
      ruleFileOf(
        read('deploy/k8s/base/monitoring/prometheusrule.yaml'),
        read('deploy/k8s/base/web-monitoring/prometheusrule.yaml'),
      ),
    ) as { groups: RuleGroup[] };
    expect(evaluated(rules.groups)).toEqual(evaluated(ruleGroups(dev as Manifest[])));
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${dir}rules.yml`, stringify(rules));
    writeFileSync(`${dir}prometheus.yml`, stringify({ ...config, rule_files: ['rules.yml'] }));
    const count = rules.groups.flatMap((g) => g.rules).length;
    expect(await promtool(['check', 'config', 'prometheus.yml'], dir)).toContain(`SUCCESS: ${count} rules found`);
    expect(config.rule_files).toEqual(['/etc/prometheus/rules.yml']);
    expect(read('deploy/prometheus/Dockerfile')).toMatch(/rules\.yml \/etc\/prometheus\/rules\.yml$/m);
  });
});

describe('scaleRules (the e2e suite waits for scaled windows)', () => {
  const rule = (expr: string, duration?: string) => ({
    name: 'g',
    rules: [{ alert: 'A', expr, ...(duration ? { for: duration } : {}) }],
  });
  it.each([
    ['rate(x[5m]) > 0.05', '10m', 'rate(x[5000ms]) > 0.05', '10000ms'],
    ['deriv(x[15m]) > 0 and y > 100', '15m', 'deriv(x[15000ms]) > 0 and y > 100', '15000ms'],
    [
      'max by (pod) (relay_spool_oldest_age_seconds) > 3600',
      '5m',
      'max by (pod) (relay_spool_oldest_age_seconds) > 60',
      '5000ms',
    ],
    [
      'histogram_quantile(0.99, sum by (le) (rate(h_bucket[5m]))) > 2',
      '10m',
      'histogram_quantile(0.99, sum by (le) (rate(h_bucket[5000ms]))) > 2',
      '10000ms',
    ],
  ])('%s for %s → %s for %s', (expr, duration, scaledExpr, scaledFor) => {
    expect(scaleRules([rule(expr, duration)], 60)).toEqual([rule(scaledExpr, scaledFor)]);
  });

  it('refuses a subquery rather than scale half of it', () => {
    expect(() => scaleRules([rule('max_over_time(rate(x[5m])[1h:1m])')], 60)).toThrow(/subqueries/);
  });
});
