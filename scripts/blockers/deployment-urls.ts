// The URLs of a deployment a filter list could block, each with the request kinds the browser makes of it: the tunnel
// (the SDK's fetch, the page-hide beacon), the CSP report endpoint, and every file the web build emitted. Computed by
// the web's own configuration code from the web's environment (local, or an overlay's rendered web-config).
import { existsSync, readdirSync } from 'node:fs';
import type { RequestType } from '@app/test-kit/filter-lists';
import { securityReportUrl } from '../../services/web/src/server/telemetry/endpoints.ts';
import { loadSentryConfig } from '../../services/web/src/server/telemetry/sentry-config.ts';

export interface DeploymentUrl {
  what: string;
  url: string;
  types: RequestType[];
}

const ASSET_TYPES: Record<string, RequestType> = { '.js': 'script', '.css': 'stylesheet' };

/**
 * For a web service at `origin` with environment `env` (SENTRY_DSN, TUNNEL_PATH…) and the build in `clientDir`
 * (services/web/dist/client): what the browser requests of its own host, and of the intake in direct mode.
 */
export function deploymentUrls(origin: string, env: Record<string, string>, clientDir: string): DeploymentUrl[] {
  const sentry = loadSentryConfig(env);
  if (!sentry) throw new Error('the web configuration is invalid (start the web service with it to see why)');
  const urls: DeploymentUrl[] = [];
  const { dsn, tunnelPath, environment, release } = sentry;
  if (dsn && tunnelPath)
    urls.push({ what: 'tunnel', url: new URL(tunnelPath, origin).href, types: ['xmlhttprequest', 'ping'] });
  if (dsn) {
    const report = securityReportUrl({ dsn, tunnelPath, environment, release });
    urls.push({ what: 'CSP reports', url: new URL(report, origin).href, types: ['csp_report'] });
  }
  const assets = `${clientDir}/assets`;
  for (const name of existsSync(assets) ? readdirSync(assets).sort() : []) {
    const type = ASSET_TYPES[name.slice(name.lastIndexOf('.'))];
    if (type) urls.push({ what: 'asset', url: new URL(`/assets/${name}`, origin).href, types: [type] });
  }
  return urls;
}
