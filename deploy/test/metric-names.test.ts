// Every metric name the deployment relies on is one the services really export, in PromQL that Prometheus parses:
// the HPAs' custom metrics through the prometheus-adapter rules, the Grafana dashboard's panels and the alerts.
// The truth is each service's own /metrics (support/exported-metrics.ts); names from the cluster's standard
// exporters are listed one by one (../prometheus/cluster-metrics.ts). A dashboard cannot be loaded into a real Grafana here (no image, no
// package), so its JSON is held to the structure Grafana's dashboard sidecar needs.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { HorizontalPodAutoscaler } from 'kubernetes-types/autoscaling/v2.js';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { clusterMetrics } from '../prometheus/cluster-metrics.ts';
import { exportedMetrics, type Service, services } from './support/exported-metrics.ts';
import { type K8sObject, ofKind, overlays, renderOverlay } from './support/manifests.ts';
import { matcherValue, promtool, type Selector, selectorsOf } from './support/promql.ts';

/** Series Prometheus itself writes for every scrape target (the scrape-absence alerts read them). */
const scrapeSeries = new Set(['up']);

type Exported = Record<Service, Set<string>>;

/**
 * What is wrong with the selectors of one expression: a selector without a fixed metric name, a `job` that is not
 * one of the services, a name its job's service does not export, or (without a job) a name nobody exports.
 */
function unknownSelectors(selectors: Selector[], exported: Exported): string[] {
  const problems: string[] = [];
  for (const selector of selectors) {
    const { name } = selector;
    const job = matcherValue(selector, 'job');
    if (!name) problems.push(`a selector without a metric name: ${JSON.stringify(selector.matchers)}`);
    else if (job !== undefined) {
      if (!(services as readonly string[]).includes(job)) problems.push(`${name}: job="${job}" is not a service`);
      else if (!exported[job as Service].has(name) && !scrapeSeries.has(name))
        problems.push(`${name}: not exported by ${job}`);
    } else if (!services.some((s) => exported[s].has(name)) && !(name in clusterMetrics)) {
      problems.push(`${name}: exported by no service and not a listed cluster metric`);
    }
  }
  return problems;
}

async function problemsOf(expr: string, exported: Exported): Promise<string[]> {
  return unknownSelectors(await selectorsOf(expr), exported).map((p) => `${p}\n    in ${expr}`);
}

// --- prometheus-adapter ---------------------------------------------------------------------------------------

interface AdapterRule {
  seriesQuery: string;
  resources?: { overrides?: Record<string, { resource?: string }> };
  name?: { matches?: string; as?: string };
  metricsQuery: string;
}

/** Every service's adapter rules (one ConfigMap each, so that the relay deploys alone), as one adapter reads them. */
function adapterRules(objects: K8sObject[]): AdapterRule[] {
  const configs = ofKind<ConfigMap>(objects, 'ConfigMap')
    .filter((c) => c.metadata.labels?.['app.kubernetes.io/component'] === 'prometheus-adapter-rules')
    .map((c) => c.data?.['config.yaml'] ?? '');
  if (configs.length === 0) throw new Error('no ConfigMap with the prometheus-adapter rules (key config.yaml)');
  return configs.flatMap((config) => (parse(config) as { rules: AdapterRule[] }).rules);
}

/** The one series a rule's seriesQuery selects (parsed by promtool). */
async function seriesOf(rule: AdapterRule): Promise<Selector & { name: string }> {
  const selectors = await selectorsOf(rule.seriesQuery);
  const [series] = selectors;
  if (selectors.length !== 1 || !series?.name) throw new Error(`${rule.seriesQuery}: not one named series`);
  return series as Selector & { name: string };
}

/** The metricsQuery as the adapter sends it for the pods of one HPA (its Go template filled in). */
const fillTemplate = (query: string, series: string) =>
  query
    .replaceAll('<<.Series>>', series)
    .replaceAll('<<.LabelMatchers>>', 'namespace="ssr-telemetry",pod=~"web-0|web-1"')
    .replaceAll('<<.GroupBy>>', 'pod');

/** The custom-metrics API name a rule gives a series (the adapter's name.matches / name.as). */
const apiName = (rule: AdapterRule, series: string) =>
  rule.name?.as ? series.replace(new RegExp(rule.name.matches ?? '.*'), rule.name.as) : series;

// --- Grafana --------------------------------------------------------------------------------------------------

interface Target {
  refId?: string;
  expr?: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  id?: number;
  type?: string;
  title?: string;
  gridPos?: { h?: number; w?: number; x?: number; y?: number };
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
  panels?: Panel[];
}
interface Dashboard {
  uid?: string;
  title?: string;
  schemaVersion?: number;
  panels?: Panel[];
  templating?: { list?: { name: string; type: string; query?: string | { query?: string } }[] };
}

/** Every panel's data source: the dashboard's `datasource` variable, so one dashboard serves any Prometheus. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a template literal
const PANEL_DATASOURCE = { type: 'prometheus', uid: '${datasource}' };

const allPanels = (panels: Panel[] = []): Panel[] => panels.flatMap((p) => [p, ...allPanels(p.panels)]);

/** Grafana's own range variables; a sample duration stands in for them. */
const GRAFANA_RANGES = /\$(?:\{__(?:rate_interval|interval|range)\}|__(?:rate_interval|interval|range)\b)/g;

/** A panel query as Prometheus receives it: ranges and the dashboard's variables filled in; unknown ones reported. */
function panelQuery(expr: string, variables: Set<string>): { promql: string; undefinedVariables: string[] } {
  const undefinedVariables: string[] = [];
  const promql = expr.replace(GRAFANA_RANGES, '5m').replace(/\$\{(\w+)\}|\$(\w+)/g, (_, braced, bare) => {
    const name = braced ?? bare;
    if (!variables.has(name)) undefinedVariables.push(name);
    return 'sample';
  });
  return { promql, undefinedVariables };
}

/** The PromQL inside a Prometheus query variable (`label_values(<selector>, label)` or `query_result(<expr>)`). */
function variableQuery(query: string): string {
  const match = /^\s*(?:label_values\((.+),\s*\w+\s*\)|query_result\((.+)\))\s*$/s.exec(query);
  if (!match) throw new Error(`unsupported variable query: ${query}`);
  return (match[1] ?? match[2]) as string;
}

function dashboardsOf(objects: K8sObject[]): Array<{ key: string; dashboard: Dashboard }> {
  return ofKind<ConfigMap>(objects, 'ConfigMap')
    .filter((c) => c.metadata.labels?.grafana_dashboard === '1')
    .flatMap((c) => Object.entries(c.data ?? {}).map(([key, text]) => ({ key, dashboard: JSON.parse(text) })));
}

/** Every PromQL query of a dashboard, named by where it stands, with the variables filled in. */
function dashboardQueries(
  dashboard: Dashboard,
): Array<{ where: string; promql: string; undefinedVariables: string[] }> {
  const variables = new Set((dashboard.templating?.list ?? []).map((v) => v.name));
  const queries = allPanels(dashboard.panels).flatMap((panel) =>
    (panel.targets ?? []).map((t) => ({ where: `panel "${panel.title}" ${t.refId}`, expr: t.expr ?? '' })),
  );
  for (const variable of dashboard.templating?.list ?? []) {
    if (variable.type !== 'query') continue;
    const query = typeof variable.query === 'string' ? variable.query : (variable.query?.query ?? '');
    queries.push({ where: `variable $${variable.name}`, expr: variableQuery(query) });
  }
  return queries.map(({ where, expr }) => ({ where, ...panelQuery(expr, variables) }));
}

// --- the checks -----------------------------------------------------------------------------------------------

const cacheDir = fileURLToPath(new URL('../.cache/metric-names/', import.meta.url));

describe('metric names against what the services export', () => {
  let exported: Exported;
  let rendered: Record<(typeof overlays)[number], K8sObject[]>;
  let prod: K8sObject[];
  beforeAll(async () => {
    const [scraped, dev, prodObjects] = await Promise.all([
      exportedMetrics(),
      renderOverlay('dev'),
      renderOverlay('prod'),
    ]);
    exported = scraped;
    prod = prodObjects;
    rendered = { dev, prod };
  }, 30_000); // about 1.5 s; the margin is for a loaded CI machine

  it('scrapes both services: their own metrics and the Node.js defaults', () => {
    expect(exported.web).toContain('page_requests_total');
    expect(exported.web).toContain('http_request_duration_seconds_bucket');
    expect(exported['telemetry-relay']).toContain('relay_envelopes_received_total');
    expect(exported['telemetry-relay']).toContain('relay_spool_envelopes');
    for (const service of services) expect(exported[service]).toContain('nodejs_eventloop_lag_p99_seconds');
  });

  describe('prometheus-adapter rules and the HPAs', () => {
    it('each rule selects one series of one service, by job, that the service exports', async () => {
      for (const rule of adapterRules(prod)) {
        const series = await seriesOf(rule);
        expect(matcherValue(series, 'job'), `${rule.seriesQuery}: a job matcher`).toBeDefined();
        expect(unknownSelectors([series], exported), rule.seriesQuery).toEqual([]);
        expect(rule.resources?.overrides, `${rule.seriesQuery}: pod and namespace resources`).toEqual({
          namespace: { resource: 'namespace' },
          pod: { resource: 'pod' },
        });
        expect(series.name).toMatch(new RegExp(rule.name?.matches ?? '.*'));
      }
    });

    it("each rule's metricsQuery parses and queries only its series, per pod, within the HPA's pods", async () => {
      for (const rule of adapterRules(prod)) {
        const series = await seriesOf(rule);
        const { name } = series;
        for (const placeholder of ['<<.Series>>', '<<.LabelMatchers>>', '<<.GroupBy>>']) {
          expect(rule.metricsQuery, `${name}: uses ${placeholder}`).toContain(placeholder);
        }
        const promql = fillTemplate(rule.metricsQuery, name);
        expect(promql, `${name}: no template left`).not.toMatch(/<<|>>/);
        for (const selector of await selectorsOf(promql)) {
          expect(selector.name, promql).toBe(name);
          expect(matcherValue(selector, 'job'), `${promql}: same job as the seriesQuery`).toBe(
            matcherValue(series, 'job'),
          );
          expect(matcherValue(selector, 'namespace'), `${promql}: the HPA's namespace`).toBe('ssr-telemetry');
          expect(
            selector.matchers.some((m) => m.label === 'pod'),
            `${promql}: the HPA's pods`,
          ).toBe(true);
        }
      }
    });

    it.each(overlays)(
      'in overlay %s every HPA custom metric comes from a rule for its own service, and every rule is used',
      async (overlay) => {
        const rules = await Promise.all(
          adapterRules(rendered[overlay]).map(async (rule) => {
            const series = await seriesOf(rule);
            return { apiName: apiName(rule, series.name), job: matcherValue(series, 'job') };
          }),
        );
        const used = new Set<string>();
        for (const hpa of ofKind<HorizontalPodAutoscaler>(rendered[overlay], 'HorizontalPodAutoscaler')) {
          for (const metric of hpa.spec?.metrics ?? []) {
            if (metric.type === 'Resource' || metric.type === 'ContainerResource') continue;
            const name = metric.pods?.metric.name ?? metric.object?.metric.name ?? metric.external?.metric.name;
            const rule = rules.find((r) => r.apiName === name);
            expect(rule, `HPA ${hpa.metadata.name}: an adapter rule producing ${name}`).toBeDefined();
            // The pods' app.kubernetes.io/name is both the job label and the workload's name.
            expect(rule?.job, `HPA ${hpa.metadata.name} scales on ${name}`).toBe(hpa.spec?.scaleTargetRef.name);
            used.add(name as string);
          }
        }
        expect(rules.map((r) => r.apiName).sort()).toEqual([...used].sort());
      },
    );
  });

  describe('Grafana dashboard', () => {
    it('is a ConfigMap for the sidecar per service holding a dashboard with uid, title, schemaVersion and laid-out panels', () => {
      const dashboards = dashboardsOf(prod);
      // The relay's and web's apart, so that the relay deploys alone (deploy/k8s/relay); uids are Grafana's keys.
      expect(dashboards.map((d) => d.key).sort()).toEqual(['ssr-telemetry.json', 'web.json']);
      expect(new Set(dashboards.map((d) => d.dashboard.uid)).size).toBe(dashboards.length);
      for (const { key, dashboard } of dashboards) {
        expect(dashboard.uid, `${key} uid`).toMatch(/^[\w-]{1,40}$/);
        expect(dashboard.title, `${key} title`).toMatch(/\S/);
        expect(Number.isInteger(dashboard.schemaVersion), `${key} schemaVersion`).toBe(true);
        const panels = allPanels(dashboard.panels);
        expect(panels.length, `${key} panels`).toBeGreaterThan(0);
        const ids = panels.flatMap((p) => (p.id === undefined ? [] : [p.id]));
        expect(new Set(ids).size, `${key} panel ids unique`).toBe(ids.length);
        for (const panel of panels) {
          const where = `${key} panel "${panel.title}"`;
          expect(panel.type, where).toMatch(/\S/);
          const { h = 0, w = 0, x = -1, y = -1 } = panel.gridPos ?? {};
          expect(h > 0 && w > 0 && x >= 0 && y >= 0 && x + w <= 24, `${where} gridPos`).toBe(true);
          if (panel.type === 'row') continue;
          expect(panel.datasource, `${where} datasource`).toEqual(PANEL_DATASOURCE);
          expect(panel.targets?.length, `${where} targets`).toBeGreaterThan(0);
          const refIds = (panel.targets ?? []).map((t) => t.refId);
          expect(new Set(refIds).size, `${where} refIds unique`).toBe(refIds.length);
          for (const target of panel.targets ?? []) {
            expect(target.expr, `${where} ${target.refId} expr`).toMatch(/\S/);
            expect(target.datasource ?? panel.datasource, `${where} ${target.refId}`).toEqual(panel.datasource);
          }
        }
        const datasource = dashboard.templating?.list?.find((v) => v.name === 'datasource');
        expect(datasource, `${key}: the \${datasource} variable the panels use`).toMatchObject({
          type: 'datasource',
          query: 'prometheus',
        });
      }
    });

    it('queries only defined variables and metrics the services or the listed cluster exporters export', async () => {
      const problems: string[] = [];
      for (const { key, dashboard } of dashboardsOf(prod)) {
        for (const { where, promql, undefinedVariables } of dashboardQueries(dashboard)) {
          problems.push(...undefinedVariables.map((v) => `${key} ${where}: undefined variable $${v}`));
          problems.push(...(await problemsOf(promql, exported)).map((p) => `${key} ${where}: ${p}`));
        }
      }
      expect(problems).toEqual([]);
    });
  });

  it('the adapter and dashboard queries load as Prometheus rules (promtool check rules)', async () => {
    const records = [
      ...(await Promise.all(
        adapterRules(prod).map(async (rule, i) => ({
          record: `adapter:rule${i}`,
          expr: fillTemplate(rule.metricsQuery, (await seriesOf(rule)).name),
        })),
      )),
      ...dashboardsOf(prod).flatMap(({ dashboard }, d) =>
        dashboardQueries(dashboard).map(({ promql }, i) => ({ record: `dashboard${d}:query${i}`, expr: promql })),
      ),
    ];
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(`${cacheDir}queries.yaml`, stringify({ groups: [{ name: 'queries', rules: records }] }));
    expect(await promtool(['check', 'rules', 'queries.yaml'], cacheDir)).toContain(
      `SUCCESS: ${records.length} rules found`,
    );
  });

  it('alerts query only metrics their job exports', async () => {
    const problems: string[] = [];
    const rules = prod
      .filter((o) => o.kind === 'PrometheusRule')
      .flatMap((o) => (o.spec as { groups: { rules: { alert?: string; expr: string }[] }[] }).groups)
      .flatMap((g) => g.rules);
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules)
      problems.push(...(await problemsOf(rule.expr, exported)).map((p) => `${rule.alert}: ${p}`));
    expect(problems).toEqual([]);
  });

  describe('the checks themselves', () => {
    it('report a misspelt name, a name under the wrong job, an unknown job and a selector without a name', async () => {
      const problems = await problemsOf(
        'sum(rate(relay_envelopes_recieved_total[5m])) + sum(rate(page_requests_total{job="telemetry-relay"}[5m]))' +
          ' + sum(up{job="nginx"}) + count({__name__=~"relay_.*"})',
        exported,
      );
      expect(problems.join('\n')).toMatch(/relay_envelopes_recieved_total: exported by no service/);
      expect(problems.join('\n')).toMatch(/page_requests_total: not exported by telemetry-relay/);
      expect(problems.join('\n')).toMatch(/up: job="nginx" is not a service/);
      expect(problems.join('\n')).toMatch(/a selector without a metric name/);
    });

    it('reject PromQL that does not parse, and dashboard variables that are not defined', async () => {
      await expect(selectorsOf('sum(rate(page_requests_total[5m])')).rejects.toThrow(/parse error/);
      expect(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a template literal
        panelQuery('rate(x{namespace="$namespace", pod="${pod}"}[$__rate_interval])', new Set(['namespace'])),
      ).toEqual({ promql: 'rate(x{namespace="sample", pod="sample"}[5m])', undefinedVariables: ['pod'] });
    });
  });
});
