// A real Prometheus (Debian's package: scripts/machine/setup.sh installs it) as a process on loopback, configured
// from the rendered manifests (deploy/prometheus/config.ts), and the few HTTP API calls the suites make of it.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@app/test-kit';
import { stringify } from 'yaml';
import type { RuleGroup, ScrapeJob } from '../../deploy/prometheus/config.ts';
import { eventually } from './containers.ts';

export interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}
export interface RangeSeries {
  metric: Record<string, string>;
  values: [number, string][];
}
export interface AlertState {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
}
export interface RuleHealth {
  name: string;
  type: 'alerting' | 'recording';
  health: string;
  lastError?: string;
}
export interface TargetHealth {
  labels: Record<string, string>;
  health: string;
  lastError: string;
}

/** The HTTP API of a Prometheus at `url` (its /api/v1 answers, `data` unwrapped; an error answer throws). */
export function prometheusApi(url: string) {
  async function get<T>(path: string, params: Record<string, string> = {}): Promise<T> {
    const response = await fetch(`${url}/api/v1/${path}?${new URLSearchParams(params)}`);
    const body = (await response.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`${path} ${JSON.stringify(params)}: ${body.error}`);
    return body.data;
  }
  return {
    url,
    query: async (query: string) => (await get<{ result: Sample[] }>('query', { query })).result,
    queryRange: async (query: string, start: number, end: number, step = 1) =>
      (
        await get<{ result: RangeSeries[] }>('query_range', {
          query,
          start: String(start),
          end: String(end),
          step: String(step),
        })
      ).result,
    alerts: async () => (await get<{ alerts: AlertState[] }>('alerts')).alerts,
    rules: async () =>
      (await get<{ groups: { rules: RuleHealth[] }[] }>('rules')).groups.flatMap((group) => group.rules),
    targets: async () => (await get<{ activeTargets: TargetHealth[] }>('targets')).activeTargets,
  };
}
export type PrometheusApi = ReturnType<typeof prometheusApi>;

export interface PrometheusProcess extends PrometheusApi {
  /** Rewrites the scrape jobs and reloads them (SIGHUP): a target left out is gone, its series marked stale. */
  reload(jobs: ScrapeJob[]): void;
  close(): Promise<void>;
}

/** Starts `prometheus` (PROMETHEUS overrides the binary) with these jobs and rules, evaluated every `interval`. */
export async function startPrometheus(options: {
  jobs: ScrapeJob[];
  groups: RuleGroup[];
  interval: string;
}): Promise<PrometheusProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-prometheus-'));
  writeFileSync(join(dir, 'rules.yml'), stringify({ groups: options.groups }));
  const writeConfig = (jobs: ScrapeJob[]) => {
    const config = {
      global: { scrape_interval: options.interval, evaluation_interval: options.interval },
      rule_files: [join(dir, 'rules.yml')],
      scrape_configs: jobs,
    };
    writeFileSync(join(dir, 'prometheus.yml'), stringify(config));
  };
  writeConfig(options.jobs);
  const port = await freePort();
  const child = spawn(
    process.env.PROMETHEUS ?? 'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-8_000);
  });
  const url = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await eventually(async () => (await fetch(`${url}/-/ready`)).ok, 30_000, `Prometheus to be ready: ${log}`);
  } catch (error) {
    await close();
    throw error;
  }
  const reload = (jobs: ScrapeJob[]) => {
    writeConfig(jobs);
    child.kill('SIGHUP');
  };
  return { ...prometheusApi(url), reload, close };
}
