// `npm run release` end to end against a real registry on loopback (Debian's docker-registry): both images built,
// labelled and pushed under both tags, an SBOM per image, and a copy of the prod overlay pinned to the digests the
// registry serves — checked through the registry's HTTP API, skopeo and `kubectl kustomize`. The checkout's own
// overlay is never touched (the release edits a copy, with the operator's values set: the release refuses
// placeholders, which the last test checks on the shipped values).
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { type SentryApiFake, startSentryApiFake } from '@app/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { docker, repoRoot } from '../support/containers.ts';
import { type LocalRegistry, startRegistry } from '../support/registry.ts';

const run = promisify(execFile);
const services = ['web', 'telemetry-relay'] as const;
const PROD = 'deploy/k8s/overlays/prod/kustomization.yaml';
/** An operator's values for the copy of the prod overlay (overlays/prod/operator.env lists what each is). */
const OPERATOR_ENV = [
  'HOST=shop.acme.io',
  'GATEWAY_NAME=shared-gateway',
  'GATEWAY_NAMESPACE=gateway-system',
  'GATEWAY_LISTENER=https',
  'GATEWAY_PROXY_NAMESPACE=envoy-gateway-system',
  'RUNBOOK_BASE_URL=https://git.acme.io/ops/ssr-telemetry/blob/main/docs/runbook.md',
  'SENTRY_INTAKE_CIDR=34.120.195.0/24',
  'SENTRY_DSN=https://0123abcd@o4507.ingest.de.sentry.io/42',
  'ALLOWED_DSNS=https://0123abcd@o4507.ingest.de.sentry.io/42',
].join('\n');

interface BomComponent {
  group?: string;
  name: string;
  version: string;
  components?: BomComponent[];
}
interface Bom {
  bomFormat: string;
  specVersion: string;
  metadata: { component: { type: string; name: string; version: string; purl: string } };
  components: BomComponent[];
}

const packageNames = (components: BomComponent[] = []): string[] =>
  components.flatMap((c) => [`${c.group ? `${c.group}/` : ''}${c.name}@${c.version}`, ...packageNames(c.components)]);

// Every package directory under the image's /app/node_modules (nested ones too), as name@version; run by the
// image's own node (it has no shell).
const LIST_PACKAGES = `const fs = require('node:fs'); const found = new Set();
const visit = (dir) => { let entries; try { entries = fs.readdirSync(dir); } catch { return; }
  for (const e of entries) { if (e.startsWith('.')) continue;
    if (e.startsWith('@')) for (const s of fs.readdirSync(dir + '/' + e)) add(dir + '/' + e + '/' + s); else add(dir + '/' + e); } };
const add = (path) => { if (fs.lstatSync(path).isSymbolicLink()) return;
  const m = JSON.parse(fs.readFileSync(path + '/package.json', 'utf8')); found.add(m.name + '@' + m.version);
  visit(path + '/node_modules'); };
visit('/app/node_modules'); console.log(JSON.stringify([...found]));`;

// The Debug ID comment closing each client chunk in the web image, by file name.
const LIST_DEBUG_IDS = `const fs = require('node:fs'); const dir = '/app/services/web/dist/client/assets'; const ids = {};
for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.js')))
  ids[f] = /\\/\\/# debugId=([0-9a-f-]{36})\\s*$/.exec(fs.readFileSync(dir + '/' + f, 'utf8'))?.[1];
console.log(JSON.stringify(ids));`;

let registry: LocalRegistry;
let sentry: SentryApiFake;
let work: string;
let output: string;
let revision: string;
let prodBefore: string;
const version = (service: string) =>
  (JSON.parse(readFileSync(`${repoRoot}services/${service}/package.json`, 'utf8')) as { version: string }).version;

beforeAll(async () => {
  registry = await startRegistry();
  sentry = await startSentryApiFake();
  work = mkdtempSync(`${tmpdir()}/release-`);
  cpSync(`${repoRoot}deploy/k8s`, `${work}/k8s`, { recursive: true });
  writeFileSync(`${work}/k8s/overlays/prod/operator.env`, `${OPERATOR_ENV}\n`);
  prodBefore = readFileSync(`${repoRoot}${PROD}`, 'utf8');
  revision = (await run('git', ['rev-parse', 'HEAD'], { cwd: repoRoot })).stdout.trim();
  const { stdout } = await run('npm', ['run', '--silent', 'release'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      REGISTRY: `${registry.host}/ssr-telemetry`,
      RELEASE_OVERLAY: `${work}/k8s/overlays/prod`,
      RELEASE_OUT: `${work}/out`,
      // The suite runs in working checkouts, which may carry uncommitted edits.
      RELEASE_ALLOW_DIRTY: '1',
      SENTRY_AUTH_TOKEN: sentry.token,
      SENTRY_ORG: 'acme',
      SENTRY_PROJECT: 'web',
      SENTRY_URL: sentry.url,
    },
    maxBuffer: 64 * 1024 * 1024,
  });
  output = stdout;
}, 600_000);

afterAll(async () => {
  const tags = services.flatMap((s) => [version(s), `sha-${revision.slice(0, 12)}`].map((t) => `${s}:${t}`));
  await docker(['image', 'rm', ...tags.map((t) => `${registry.host}/ssr-telemetry/${t}`)]).catch(() => '');
  await registry?.stop();
  await sentry?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('npm run release', () => {
  it('pins the prod overlay to the digests the registry serves for both tags', async () => {
    const { stdout } = await run('kubectl', ['kustomize', `${work}/k8s/overlays/prod`], { maxBuffer: 32 << 20 });
    const images = parseAllDocuments(stdout)
      .map((d) => d.toJS() as { kind: string; spec?: { template?: { spec?: { containers?: { image: string }[] } } } })
      .filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet')
      .flatMap((o) => o.spec?.template?.spec?.containers?.map((c) => c.image) ?? []);
    for (const service of services) {
      const repository = `ssr-telemetry/${service}`;
      const pinned = images.filter((image) => image.startsWith(`${registry.host}/${repository}@`));
      expect(pinned, service).toHaveLength(1);
      const digest = pinned[0]?.split('@')[1];
      expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(await registry.manifestDigest(repository, version(service)), `${service} version tag`).toBe(digest);
      const shaTag = `sha-${revision.slice(0, 12)}`;
      expect(await registry.manifestDigest(repository, shaTag), `${service} commit tag`).toBe(digest);
      expect(output).toContain(`${registry.host}/${repository}@${digest}`);
    }
    expect(
      images.every((image) => image.includes('@sha256:')),
      images.join(', '),
    ).toBe(true);
  });

  it.each(services)(
    'labels the %s image with version, commit, source, licence and release (skopeo)',
    async (service) => {
      const reference = `docker://${registry.host}/ssr-telemetry/${service}:${version(service)}`;
      const { stdout } = await run('skopeo', ['inspect', '--tls-verify=false', reference]);
      const inspected = JSON.parse(stdout) as { Digest: string; Labels: Record<string, string> };
      expect(await registry.manifestDigest(`ssr-telemetry/${service}`, inspected.Digest)).toBe(inspected.Digest);
      expect(inspected.Labels).toMatchObject({
        'org.opencontainers.image.title': service,
        'org.opencontainers.image.version': version(service),
        'org.opencontainers.image.revision': revision,
        'org.opencontainers.image.licenses': 'Apache-2.0',
        'org.opencontainers.image.source': expect.stringMatching(/^https:\/\//),
        'io.sentry.release': `${service}@${version(service)}+${revision.slice(0, 12)}`,
      });
    },
  );

  it.each(services)(
    'writes a CycloneDX SBOM naming every package the %s image ships, and no dev tool',
    async (service) => {
      const bom = JSON.parse(readFileSync(`${work}/out/${service}.cdx.json`, 'utf8')) as Bom;
      expect([bom.bomFormat, bom.specVersion]).toEqual(['CycloneDX', '1.6']);
      const digest = await registry.manifestDigest(`ssr-telemetry/${service}`, version(service));
      expect(bom.metadata.component).toMatchObject({ type: 'container', name: service });
      expect(bom.metadata.component.purl).toContain(`pkg:oci/${service}@${encodeURIComponent(digest ?? '')}`);
      const listed = new Set(packageNames(bom.components));
      const image = `${registry.host}/ssr-telemetry/${service}:${version(service)}`;
      const shipped = JSON.parse(
        await docker(['run', '--rm', '--entrypoint', '/usr/local/bin/node', image, '-e', LIST_PACKAGES]),
      ) as string[];
      expect(shipped.length).toBeGreaterThan(20);
      expect(shipped.filter((p) => !listed.has(p))).toEqual([]);
      const names = [...listed].map((p) => p.slice(0, p.lastIndexOf('@')));
      expect(names).toContain('fastify');
      for (const devTool of ['vitest', 'vite', 'typescript', '@biomejs/biome', '@app/test-kit', 'testcontainers']) {
        expect(names, devTool).not.toContain(devTool);
      }
    },
  );

  it('uploads, under the web image’s release, the maps of exactly the chunks that image serves', async () => {
    const image = `${registry.host}/ssr-telemetry/web:${version('web')}`;
    const chunks = JSON.parse(
      await docker(['run', '--rm', '--entrypoint', '/usr/local/bin/node', image, '-e', LIST_DEBUG_IDS]),
    ) as Record<string, string>;
    expect(Object.keys(chunks).length).toBeGreaterThan(3);
    expect(sentry.bundles).toHaveLength(1);
    const [bundle] = sentry.bundles;
    expect(bundle?.release).toBe(`web@${version('web')}+${revision.slice(0, 12)}`);
    for (const [chunk, debugId] of Object.entries(chunks)) {
      const minified = bundle?.files.find((f) => f.url === `~/assets/${chunk}`);
      expect(minified?.headers['debug-id'], chunk).toBe(debugId);
      expect(bundle?.sourceMapByDebugId(debugId), chunk).toBeDefined();
    }
  });

  it('leaves the checkout’s prod overlay as it was', () => {
    expect(readFileSync(`${repoRoot}${PROD}`, 'utf8')).toBe(prodBefore);
  });

  it('checked the pinned overlay, and refuses one with placeholders before building, naming each (exit 2)', async () => {
    expect(output).toMatch(/deploy:check \S+overlays\/prod: no placeholders in the \d+ rendered objects/);
    const shipped = `${work}/shipped`;
    cpSync(`${repoRoot}deploy/k8s`, shipped, { recursive: true });
    const refused = await run('npm', ['run', '--silent', 'release'], {
      cwd: repoRoot,
      env: {
        ...process.env,
        REGISTRY: 'registry.example.com/ssr-telemetry',
        RELEASE_OVERLAY: `${shipped}/overlays/prod`,
        RELEASE_ALLOW_DIRTY: '1',
      },
    }).then(
      () => ({ code: 0, stdout: '', stderr: '' }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(refused.code).toBe(2);
    for (const name of ['HOST', 'RUNBOOK_BASE_URL', 'SENTRY_INTAKE_CIDR', 'SENTRY_DSN', 'ALLOWED_DSNS', 'REGISTRY']) {
      expect(refused.stderr).toMatch(new RegExp(`^  ${name}=`, 'm'));
    }
    expect(refused.stdout).not.toContain('building');
    expect(refused.stderr).not.toContain('containers.0.image');
  });
});
