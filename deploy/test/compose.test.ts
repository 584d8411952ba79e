// docker-compose.yml as docker compose v2 reads it: valid, and wired the way the README promises.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './support/manifests.ts';

const run = promisify(execFile);

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string; target?: string; args?: Record<string, string> };
  environment?: Record<string, string | null>;
  healthcheck?: { test?: string[] };
  depends_on?: Record<string, { condition: string }>;
  volumes?: { type: string; source?: string; target: string }[];
  ports?: { host_ip?: string; target: number; published: string }[];
  read_only?: boolean;
  cap_drop?: string[];
  pull_policy?: string;
  profiles?: string[];
  develop?: { watch?: { action: string; path: string }[] };
}

async function composeConfig(
  env: Record<string, string> = {},
  options: string[] = [],
): Promise<{
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}> {
  // Only what docker needs from the caller's environment, so local overrides do not change the result.
  const base = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DOCKER_HOST: process.env.DOCKER_HOST ?? '',
  };
  const { stdout } = await run(
    'docker',
    ['compose', '-f', 'docker-compose.yml', ...options, 'config', '--format', 'json'],
    {
      cwd: repoRoot,
      env: { ...base, ...env },
    },
  );
  return JSON.parse(stdout);
}

describe('docker-compose.yml', () => {
  let services: Record<string, ComposeService>;
  let volumes: Record<string, unknown> | undefined;
  beforeAll(async () => {
    ({ services, volumes } = await composeConfig());
  });

  it('is valid for docker compose v2 and has web, relay and the viewer', () => {
    expect(Object.keys(services).sort()).toEqual(['relay', 'viewer', 'web']);
  });

  it('builds every image from a Dockerfile in the repository and never pulls', () => {
    const builds = Object.fromEntries(
      Object.entries(services).map(([name, s]) => [name, [s.build?.dockerfile, s.build?.target]]),
    );
    expect(builds).toEqual({
      web: ['Dockerfile', 'web'],
      relay: ['Dockerfile', 'telemetry-relay'],
      viewer: ['deploy/viewer/Dockerfile', undefined],
    });
    for (const [name, s] of Object.entries(services)) expect(s.pull_policy ?? 'missing', name).not.toBe('always');
  });

  it('builds on the local base image (setup builds it; nothing is pulled), or the one NODE_IMAGE names', async () => {
    for (const [name, s] of Object.entries(services)) {
      expect(s.build?.args?.NODE_IMAGE, name).toBe('localhost/ssr-telemetry/node:24-bookworm-slim');
    }
    const official = await composeConfig({ NODE_IMAGE: 'node:24-bookworm-slim' });
    for (const s of Object.values(official.services)) expect(s.build?.args?.NODE_IMAGE).toBe('node:24-bookworm-slim');
  });

  it('health-checks every service with node (the images have no shell or curl)', () => {
    for (const [name, s] of Object.entries(services)) {
      expect(s.healthcheck?.test?.slice(0, 2), name).toEqual(['CMD', 'node']);
    }
  });

  it('starts each service after what it depends on is healthy: viewer → relay → web', () => {
    expect(services.web?.depends_on).toEqual({ relay: expect.objectContaining({ condition: 'service_healthy' }) });
    expect(services.relay?.depends_on).toEqual({ viewer: expect.objectContaining({ condition: 'service_healthy' }) });
  });

  it('sends the tunnel path web → relay → viewer, for the DSN the web service reports with', () => {
    expect(services.web?.environment?.TUNNEL_TARGET).toBe('http://relay:3001');
    expect(services.web?.environment?.TUNNEL_PATH).toBe(services.relay?.environment?.TUNNEL_PATH);
    expect(services.relay?.environment?.UPSTREAM_URL).toMatch(/^http:\/\/viewer:8969\/api\/\d+\/envelope\/$/);
    expect(services.relay?.environment?.ALLOWED_DSNS).toBe(services.web?.environment?.SENTRY_DSN);
  });

  it("keeps the relay's spool on a named volume, and every root filesystem read-only", () => {
    expect(services.relay?.volumes).toEqual([
      expect.objectContaining({
        type: 'volume',
        source: 'relay-spool',
        target: services.relay?.environment?.SPOOL_DIR,
      }),
    ]);
    expect(Object.keys(volumes ?? {})).toEqual(['relay-spool']);
    for (const [name, s] of Object.entries(services)) {
      expect(s.read_only, name).toBe(true);
      expect(s.cap_drop, name).toEqual(['ALL']);
    }
  });

  it('publishes ports on loopback only, overridable from the environment', async () => {
    for (const [name, s] of Object.entries(services)) {
      for (const port of s.ports ?? []) expect(port.host_ip, name).toBe('127.0.0.1');
    }
    const overridden = await composeConfig({ WEB_PORT: '8080', SENTRY_DSN: 'https://k@sentry.example.com/7' });
    expect(overridden.services.web?.ports?.[0]?.published).toBe('8080');
    expect(overridden.services.relay?.environment?.ALLOWED_DSNS).toBe('https://k@sentry.example.com/7');
  });

  it('adds Prometheus only with the observability profile: built here, hardened, healthy by node, on loopback', async () => {
    const observed = (await composeConfig({}, ['--profile', 'observability'])).services;
    expect(Object.keys(observed).sort()).toEqual(['prometheus', 'relay', 'viewer', 'web']);
    const prometheus = observed.prometheus;
    expect(prometheus?.profiles).toEqual(['observability']);
    expect(prometheus?.build?.dockerfile).toBe('deploy/prometheus/Dockerfile');
    expect(prometheus?.healthcheck?.test?.slice(0, 2)).toEqual(['CMD', 'node']);
    expect([prometheus?.read_only, prometheus?.cap_drop]).toEqual([true, ['ALL']]);
    expect(prometheus?.ports?.map((p) => `${p.host_ip} ${p.target}`)).toEqual(['127.0.0.1 9090']);
  });

  it('rebuilds web on `docker compose watch` from its sources and the workspaces it bundles', () => {
    const watched = services.web?.develop?.watch ?? [];
    expect(new Set(watched.map((w) => w.action))).toEqual(new Set(['rebuild']));
    expect(watched.map((w) => w.path.slice(repoRoot.length))).toEqual([
      'services/web',
      'packages/service-kit',
      'packages/telemetry-rules',
    ]);
  });
});
