// The series names each service really exports, read from its own /metrics — the truth the HPAs, the adapter rules,
// the dashboard and the alerts are checked against. The relay runs as the real process (src/main.ts on a loopback
// port, loopback DSNs allowed, a scratch spool). Web is built in-process with its buildApp and asked with inject():
// its process serves a client build that only `vite build` makes, far too slow for an offline check.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnService } from '@app/test-kit';
import { repoRoot } from './manifests.ts';

/** The services, by the `job` label their PodMonitors give them (the pods' app.kubernetes.io/name). */
export const services = ['web', 'telemetry-relay'] as const;
export type Service = (typeof services)[number];

/**
 * Series names in a Prometheus text exposition, from its `# TYPE` lines, so that a labelled metric nothing has
 * observed yet still counts: a histogram exports `_bucket`, `_sum` and `_count` series, a summary its own name
 * plus `_sum` and `_count`.
 */
export function seriesNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name = '', type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    else if (type === 'summary') for (const suffix of ['', '_sum', '_count']) names.add(name + suffix);
    else names.add(name);
  }
  return names;
}

async function scrapeRelay(): Promise<string> {
  const spoolDir = mkdtempSync(join(tmpdir(), 'deploy-relay-spool-'));
  try {
    const relay = await spawnService(`${repoRoot}services/telemetry-relay/src/main.ts`, {
      env: { ALLOW_LOOPBACK_DSNS: '8969', SPOOL_DIR: spoolDir, TUNNEL_PATH: '/t' },
    });
    try {
      const response = await fetch(`${relay.url}/metrics`);
      if (!response.ok) throw new Error(`relay /metrics answered ${response.status}`);
      return await response.text();
    } finally {
      await relay.kill();
    }
  } finally {
    rmSync(spoolDir, { recursive: true, force: true });
  }
}

interface WebServer {
  buildApp(
    config: unknown,
    options: { assets: { entry: string; css: string[]; preloadFor(views: readonly string[]): string[] } },
  ): Promise<{
    app: { inject(request: { url: string }): Promise<{ statusCode: number; body: string }>; close(): Promise<void> };
  }>;
}

async function scrapeWeb(): Promise<string> {
  // Imported by a computed path: a static import would make tsc type-check web's sources (React, JSX) as part of
  // this project; Vitest transforms them as it does in web's own tests.
  const server = `${repoRoot}services/web/src/server/`;
  const { buildApp }: WebServer = await import(/* @vite-ignore */ `${server}app.ts`);
  const { loadConfig }: { loadConfig(env: Record<string, string>): unknown } = await import(
    /* @vite-ignore */ `${server}config.ts`
  );
  const { app } = await buildApp(loadConfig({ LOG_LEVEL: 'silent' }), {
    assets: { entry: '/assets/entry.js', css: [], preloadFor: () => [] },
  });
  try {
    const response = await app.inject({ url: '/metrics' });
    if (response.statusCode !== 200) throw new Error(`web /metrics answered ${response.statusCode}`);
    return response.body;
  } finally {
    await app.close();
  }
}

/** Each service's exported series names, scraped once per test file. */
export async function exportedMetrics(): Promise<Record<Service, Set<string>>> {
  const [web, relay] = await Promise.all([scrapeWeb(), scrapeRelay()]);
  return { web: seriesNames(web), 'telemetry-relay': seriesNames(relay) };
}
