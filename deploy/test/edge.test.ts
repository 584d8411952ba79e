// Edge policy, checked on the rendered overlays: the tunnel path and the rest of the host each get their limits at
// whichever edge the overlay chose (Gateway API + Envoy Gateway, or Ingress), NetworkPolicies let only that edge in,
// and egress never reaches cloud metadata, carrier-grade NAT or private ranges.

import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';
import type { IHTTPRoute } from '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRoute';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { Ingress, NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { reaches } from './support/cidr.ts';
import {
  type K8sObject,
  type Overlay,
  ofKind,
  overlays,
  type Rendering,
  renderings,
  renderOverlay,
} from './support/manifests.ts';

const MiB = 1024 * 1024;
/** The relay's MAX_BODY_BYTES and its BODY_TIMEOUT_MS (docs/deploy.md, "Limits in front of the tunnel"). */
const RELAY_MAX_BODY = 20 * MiB;
const RELAY_BODY_TIMEOUT_S = 30;
/** The relay's MAX_CONNECTIONS per pod (services/telemetry-relay/README.md). */
const RELAY_MAX_CONNECTIONS = 2048;

interface TrafficPolicy {
  spec: {
    targetRefs: { kind: string; name: string }[];
    rateLimit?: {
      local?: {
        rules: { clientSelectors?: { sourceCIDR?: { type?: string } }[]; limit: { requests: number; unit: string } }[];
      };
    };
    requestBuffer?: { limit: string };
    circuitBreaker?: { maxConnections?: number; maxParallelRequests?: number; maxPendingRequests?: number };
  };
}

const QUANTITY: Record<string, number> = { '': 1, Ki: 1024, Mi: MiB, Gi: 1024 * MiB, k: 1e3, m: 1e6, g: 1e9 };
/** "20Mi" (Kubernetes quantity) or "20m" (nginx size) in bytes. */
function bytes(text: string | undefined, nginx = false): number {
  const match = /^(\d+)([A-Za-z]*)$/.exec(text ?? '');
  const unit = nginx ? (match?.[2] ?? '').toLowerCase() : (match?.[2] ?? '');
  const factor = nginx ? { '': 1, k: 1024, m: MiB, g: 1024 * MiB }[unit] : QUANTITY[unit];
  if (!match || factor === undefined) throw new Error(`not a size: ${text}`);
  return Number(match[1]) * factor;
}

/** Gateway API durations as the routes use them ("30s", "1m", "500ms") in seconds. */
function seconds(text: string | undefined): number {
  const match = /^(\d+)(ms|s|m|h)$/.exec(text ?? '');
  if (!match) throw new Error(`not a duration: ${text}`);
  return Number(match[1]) * { ms: 0.001, s: 1, m: 60, h: 3600 }[match[2] as 'ms' | 's' | 'm' | 'h'];
}

/** A rendered service config's environment, by the ConfigMap's name without its hash. */
const configOf = (objects: K8sObject[], name: string) =>
  ofKind<ConfigMap>(objects, 'ConfigMap').find((c) => c.metadata.name.startsWith(`${name}-`))?.data ?? {};
/** The tunnel path the rendering serves (web's TUNNEL_PATH, from the parameters). */
const tunnelPathIn = (objects: K8sObject[]) => configOf(objects, 'web-config').TUNNEL_PATH;

/** The peers allowed to reach a service's `http` port, as "namespace/app-name" strings ("." = the policy's own). */
function httpPeers(policies: NetworkPolicy[], service: string): string[] {
  return policies
    .filter((p) => p.spec?.podSelector.matchLabels?.['app.kubernetes.io/name'] === service)
    .flatMap((p) => p.spec?.ingress ?? [])
    .filter((rule) => rule.ports?.some((port) => port.port === 'http'))
    .flatMap((rule) => rule.from ?? [{}])
    .map(
      (peer) =>
        `${peer.namespaceSelector ? (peer.namespaceSelector.matchLabels?.['kubernetes.io/metadata.name'] ?? '*') : peer.podSelector ? '.' : '*'}/${peer.podSelector?.matchLabels?.['app.kubernetes.io/name'] ?? '*'}`,
    );
}

const hosts: Record<Overlay, string> = { dev: 'ssr-telemetry.dev.example.com', prod: 'app.example.com' };
/** The overlays' SENTRY_INTAKE_CIDR parameter (the base's is TEST-NET-3, which reaches nothing). */
const intakeCidrs: Record<Rendering, string> = {
  dev: '34.120.195.249/32',
  prod: '34.120.195.249/32',
  ingress: '198.51.100.7/32',
  'relay-only': '34.120.195.249/32',
};

describe.each(overlays)('Gateway API edge, overlay %s', (overlay: Overlay) => {
  let objects: K8sObject[];
  beforeAll(async () => {
    objects = await renderOverlay(overlay);
  });

  it('routes the tunnel path to the relay and everything else to web, on one host', () => {
    const routes = ofKind<IHTTPRoute>(objects, 'HTTPRoute');
    const split = routes.flatMap((r) =>
      (r.spec.rules ?? []).flatMap((rule) =>
        (rule.matches ?? []).map((m) => [m.path?.type, m.path?.value, rule.backendRefs?.[0]?.name]),
      ),
    );
    expect(split.sort()).toEqual([
      ['PathPrefix', '/', 'web'],
      ['PathPrefix', tunnelPathIn(objects), 'telemetry-relay'],
    ]);
    // The overlay's HOST parameter reached both routes (no placeholder left).
    expect([...new Set(routes.flatMap((r) => r.spec.hostnames))]).toEqual([hosts[overlay]]);
    for (const route of routes) {
      const [parent, ...more] = route.spec.parentRefs ?? [];
      expect(more, route.metadata?.name).toEqual([]);
      expect([parent?.kind, parent?.name, parent?.namespace], route.metadata?.name).toEqual([
        'Gateway',
        'shared-gateway',
        'gateway-system',
      ]);
    }
  });

  it('removes the forwarding headers Envoy passes on from the client (X-Forwarded-Host, Forwarded)', () => {
    for (const route of ofKind<IHTTPRoute>(objects, 'HTTPRoute')) {
      for (const rule of route.spec.rules ?? []) {
        const removed = (rule.filters ?? [])
          .filter((f) => f.type === 'RequestHeaderModifier')
          .flatMap((f) => f.requestHeaderModifier?.remove ?? [])
          .map((name) => name.toLowerCase());
        expect(removed, route.metadata?.name).toEqual(expect.arrayContaining(['x-forwarded-host', 'forwarded']));
      }
    }
  });

  it('gives every route a timeout and a body limit, and the tunnel per-client rate and connection limits', () => {
    const policies = ofKind<TrafficPolicy>(objects, 'BackendTrafficPolicy');
    for (const route of ofKind<IHTTPRoute>(objects, 'HTTPRoute')) {
      const name = route.metadata?.name ?? '';
      const tunnel = route.spec.rules?.some((r) => r.matches?.some((m) => m.path?.value === tunnelPathIn(objects)));
      for (const rule of route.spec.rules ?? []) {
        expect(seconds(rule.timeouts?.request), `${name} timeouts.request`).toBeGreaterThan(0);
        expect(seconds(rule.timeouts?.backendRequest), `${name} timeouts.backendRequest`).toBeGreaterThan(0);
        if (tunnel) expect(seconds(rule.timeouts?.request), name).toBeLessThanOrEqual(RELAY_BODY_TIMEOUT_S);
      }
      const policy = policies.find((p) => p.spec.targetRefs.some((t) => t.kind === 'HTTPRoute' && t.name === name));
      expect(policy, `BackendTrafficPolicy for HTTPRoute ${name}`).toBeDefined();
      const limit = bytes(policy?.spec.requestBuffer?.limit);
      expect(limit, `${name} body limit`).toBeLessThanOrEqual(tunnel ? RELAY_MAX_BODY : MiB);
      if (!tunnel) continue;
      expect(limit, 'the tunnel admits what the relay admits').toBe(RELAY_MAX_BODY);
      const rules = policy?.spec.rateLimit?.local?.rules ?? [];
      const perClient = rules.filter((r) => r.clientSelectors?.some((c) => c.sourceCIDR?.type === 'Distinct'));
      const perSecond = perClient.filter((r) => r.limit.unit === 'Second').map((r) => r.limit.requests);
      const perMinute = perClient.filter((r) => r.limit.unit === 'Minute').map((r) => r.limit.requests);
      // Burst 50 a second, 10/s sustained; both address families.
      expect(perSecond).toEqual([50, 50]);
      expect(perMinute).toEqual([600, 600]);
      // Each proxy's connections and requests towards the relay: bounded, and two proxies under one pod's limit.
      const breaker = policy?.spec.circuitBreaker ?? {};
      for (const key of ['maxConnections', 'maxParallelRequests', 'maxPendingRequests'] as const) {
        expect(breaker[key], `circuitBreaker.${key}`).toBeGreaterThan(0);
        expect(2 * (breaker[key] ?? Infinity), `circuitBreaker.${key}`).toBeLessThanOrEqual(RELAY_MAX_CONNECTIONS);
      }
    }
  });
});

describe('Ingress edge (components/ingress)', () => {
  it('splits the host into a tunnel Ingress and a web Ingress, each with its limits and TLS', async () => {
    const objects = await renderOverlay('ingress');
    const path = tunnelPathIn(objects) as string;
    const ingresses = ofKind<Ingress>(objects, 'Ingress');
    const byPath = Object.fromEntries(
      ingresses.map((i) => [i.spec?.rules?.[0]?.http?.paths[0]?.path, i] as const),
    ) as Record<string, Ingress>;
    expect(Object.keys(byPath).sort()).toEqual(['/', path]);
    const tunnel = byPath[path]?.metadata?.annotations ?? {};
    const web = byPath['/']?.metadata?.annotations ?? {};
    expect(bytes(tunnel['nginx.ingress.kubernetes.io/proxy-body-size'], true)).toBe(RELAY_MAX_BODY);
    expect(bytes(web['nginx.ingress.kubernetes.io/proxy-body-size'], true)).toBeLessThanOrEqual(MiB);
    expect(tunnel['nginx.ingress.kubernetes.io/limit-rps']).toBe('10');
    expect(Number(tunnel['nginx.ingress.kubernetes.io/limit-burst-multiplier']) * 10).toBe(50);
    expect(tunnel['nginx.ingress.kubernetes.io/limit-connections']).toBe('20');
    for (const [path, annotations] of [
      [tunnelPathIn(objects) as string, tunnel],
      ['/', web],
    ] as const) {
      for (const key of ['proxy-read-timeout', 'proxy-send-timeout']) {
        const value = Number(annotations[`nginx.ingress.kubernetes.io/${key}`]);
        expect(value, `${path} ${key}`).toBeGreaterThan(0);
        expect(value, `${path} ${key}`).toBeLessThanOrEqual(RELAY_BODY_TIMEOUT_S);
      }
      const ingress = byPath[path];
      expect(ingress?.spec?.rules?.[0]?.host, `${path} host`).toBe('ingress.example.com');
      expect(ingress?.spec?.tls?.[0]?.hosts, `${path} TLS`).toEqual(['ingress.example.com']);
    }
  });
});

describe.each(renderings)('edge NetworkPolicies, overlay %s', (overlay: Rendering) => {
  let objects: K8sObject[];
  beforeAll(async () => {
    objects = await renderOverlay(overlay);
  });
  const gateway = overlay !== 'ingress';
  const withWeb = overlay !== 'relay-only';

  it("lets only the chosen edge reach the services, and web's server SDK the relay, only on their HTTP port", () => {
    const policies = ofKind<NetworkPolicy>(objects, 'NetworkPolicy');
    const edge = gateway ? 'envoy-gateway-system/envoy' : 'ingress-nginx/ingress-nginx';
    expect(httpPeers(policies, 'web')).toEqual(withWeb ? [edge] : []);
    expect(httpPeers(policies, 'telemetry-relay').sort()).toEqual(withWeb ? [edge, './web'].sort() : [edge]);
  });

  it('sends telemetry egress to the overlay’s SENTRY_INTAKE_CIDR, not the base placeholder', () => {
    const egress = ofKind<NetworkPolicy>(objects, 'NetworkPolicy').find(
      (p) => p.metadata?.name === 'sentry-intake-egress',
    );
    const blocks = (egress?.spec?.egress ?? []).flatMap((rule) => rule.to ?? []).map((peer) => peer.ipBlock?.cidr);
    expect(blocks).toEqual([intakeCidrs[overlay]]);
  });

  it('allows egress only to DNS and the intake, never to metadata, carrier-grade NAT or private ranges', () => {
    const forbidden = [
      '169.254.0.0/16',
      '100.64.0.0/10',
      '10.0.0.0/8',
      '172.16.0.0/12',
      '192.168.0.0/16',
      '127.0.0.0/8',
    ];
    for (const policy of ofKind<NetworkPolicy>(objects, 'NetworkPolicy')) {
      for (const rule of policy.spec?.egress ?? []) {
        const where = `NetworkPolicy ${policy.metadata.name}`;
        expect(rule.to?.length, `${where}: an egress rule without destinations allows all`).toBeGreaterThan(0);
        for (const peer of rule.to ?? []) {
          if (!peer.ipBlock) {
            // In the cluster: DNS, and web to the relay (its server SDK's envelopes), nothing else.
            const target =
              peer.podSelector?.matchLabels?.['k8s-app'] ?? peer.podSelector?.matchLabels?.['app.kubernetes.io/name'];
            const toRelay = policy.metadata.name === 'web' && target === 'telemetry-relay' && !peer.namespaceSelector;
            expect(toRelay || target === 'kube-dns', `${where}: in-cluster egress is DNS (or web → relay)`).toBe(true);
            continue;
          }
          for (const range of forbidden) {
            expect(reaches(peer.ipBlock, range), `${where}: ${peer.ipBlock.cidr} reaches ${range}`).toBe(false);
          }
        }
      }
    }
  });
});

describe('the egress check itself', () => {
  it.each([
    [{ cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'] }, '169.254.0.0/16', true],
    [{ cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'] }, '100.64.0.0/10', true],
    [{ cidr: '0.0.0.0/0', except: ['169.254.0.0/16'] }, '169.254.0.0/16', false],
    [{ cidr: '100.64.1.0/24' }, '100.64.0.0/10', true],
    [{ cidr: '34.120.195.249/32' }, '100.64.0.0/10', false],
    [{ cidr: '10.1.2.3/32' }, '10.0.0.0/8', true],
  ])('%o reaching %s: %s', (block, range, expected) => {
    expect(reaches(block, range)).toBe(expected);
  });
});

describe('environment differences at the edge', () => {
  it('prod attaches its routes to the Gateway TLS listener', async () => {
    for (const route of ofKind<IHTTPRoute>(await renderOverlay('prod'), 'HTTPRoute')) {
      expect(route.spec.parentRefs?.[0]?.sectionName, route.metadata?.name).toBe('https');
    }
  });
});

describe.each(renderings.filter((overlay) => overlay !== 'relay-only'))(
  'the web beside the relay, overlay %s',
  (overlay) => {
    let objects: K8sObject[];
    beforeAll(async () => {
      objects = await renderOverlay(overlay);
    });

    it('lets only the relay leave the cluster: web sends its server telemetry through it', () => {
      const policies = ofKind<NetworkPolicy>(objects, 'NetworkPolicy');
      const leaving = policies.filter((p) => p.spec?.egress?.some((rule) => rule.to?.some((peer) => peer.ipBlock)));
      const selected = leaving.flatMap((p) => [
        ...Object.values(p.spec?.podSelector.matchLabels ?? {}),
        ...(p.spec?.podSelector.matchExpressions ?? []).flatMap((e) => e.values ?? []),
      ]);
      expect(selected).toContain('telemetry-relay');
      expect(selected).not.toContain('web');
      expect(configOf(objects, 'web-config').SERVER_TUNNEL_URL).toBe(`http://telemetry-relay${tunnelPathIn(objects)}`);
    });

    // One place (the parameters' TUNNEL_PATH) for the edge's route, both services and web's SERVER_TUNNEL_URL above;
    // shipped as the path `tunnel: true` derives from the overlay's DSN, never a word a list can name for every site.
    it('serves one tunnel path in both services: the one `tunnel: true` derives from the DSN', () => {
      const web = configOf(objects, 'web-config');
      expect(configOf(objects, 'telemetry-relay-config').TUNNEL_PATH).toBe(web.TUNNEL_PATH);
      expect(web.TUNNEL_PATH).toBe(tunnelPathOf(web.SENTRY_DSN ?? ''));
    });
  },
);
