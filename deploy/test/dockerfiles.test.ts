// The Dockerfiles, read as text: they must build on this engine (Docker 20.10, no registry) and keep the final
// images small, non-root and free of the build-time CA bundle. Building them is the container suites' job.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/manifests.ts';

const dockerfiles = ['Dockerfile', 'deploy/viewer/Dockerfile', 'deploy/prometheus/Dockerfile'];
/** The images a Dockerfile makes: the root one has a target per service, the others make their last stage. */
const targets: Record<string, string[]> = { Dockerfile: ['telemetry-relay', 'web'] };
// `${NODE_IMAGE}` is the Dockerfiles' ARG (default node:24-bookworm-slim, checked below), written literally: no stage
// names a base of its own, so what builds here (NODE_IMAGE=the local base) and a CI that pulls differ only there.
const allowedBases = new Set(['scratch', ['$', '{NODE_IMAGE}'].join('')]);
/** The name scripts/machine/setup.sh builds the local base under; everything that builds here passes it. */
const LOCAL_BASE = 'localhost/ssr-telemetry/node:24-bookworm-slim';

interface Stage {
  from: string;
  name: string | undefined;
  lines: string[];
}

function stages(text: string): Stage[] {
  const joined = text.replace(/\\\n/g, ' ');
  const result: Stage[] = [];
  for (const line of joined.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from?.[1]) result.push({ from: from[1], name: from[2], lines: [] });
    else result.at(-1)?.lines.push(line);
  }
  return result;
}

/** A stage with the lines of the stages it is built FROM (what the image it makes inherits). */
function withAncestors(all: Stage[], stage: Stage): Stage {
  const parent = all.find((s) => s.name === stage.from);
  return parent ? { ...stage, lines: [...withAncestors(all, parent).lines, ...stage.lines] } : stage;
}

const images = dockerfiles.flatMap((path) => {
  const all = stages(readFileSync(`${repoRoot}${path}`, 'utf8'));
  const names = targets[path] ?? [undefined];
  return names.map((target) => {
    const stage = target === undefined ? all.at(-1) : all.find((s) => s.name === target);
    if (!stage) throw new Error(`${path}: no stage ${target}`);
    return { image: target ? `${path} --target ${target}` : path, path, all, final: withAncestors(all, stage) };
  });
});

describe.each(dockerfiles)('%s', (path) => {
  const text = readFileSync(`${repoRoot}${path}`, 'utf8');
  const all = stages(text);

  it('builds on Docker 20.10 without a registry: the base from NODE_IMAGE only, no syntax line, heredoc, COPY --link or --pull', () => {
    const names = new Set(all.map((s) => s.name));
    for (const stage of all) expect(allowedBases.has(stage.from) || names.has(stage.from), stage.from).toBe(true);
    expect(text).toMatch(/^ARG NODE_IMAGE=node:24-bookworm-slim$/m);
    expect(text).not.toMatch(/^#\s*syntax=/m);
    expect(text).not.toMatch(/<<-?\s*['"]?\w+/);
    const instructions = text.split('\n').filter((l) => !l.trimStart().startsWith('#'));
    expect(instructions.join('\n')).not.toMatch(/--link|--pull/);
  });
});

describe.each(images)('$image', ({ path, all, final }) => {
  it('runs as a non-root user in the final stage', () => {
    const user = final.lines.filter((l) => /^USER\s/i.test(l)).at(-1);
    expect(user).toMatch(/^USER\s+(node|1000(:1000)?)$/);
  });

  it('uses the proxy CA only in build stages, and removes it before anything is copied on', () => {
    expect(final.lines.join('\n')).not.toMatch(/ci-ca|NODE_EXTRA_CA_CERTS|\/etc\/ssl/);
    for (const stage of all.filter((s) => s.lines.some((l) => l.includes('ci-ca.pe[m]')))) {
      expect(
        stage.lines.some((l) => /^COPY .*ci-ca\.pe\[m\]/.test(l)),
        stage.name,
      ).toBe(true);
    }
    // The stages the final image copies from must have deleted the bundle (the glob keeps it optional).
    const copiedFrom = final.lines.flatMap((l) => /--from=(\S+)/.exec(l)?.[1] ?? []);
    for (const stage of all.filter((s) => s.name && copiedFrom.includes(s.name))) {
      const copiesCa = stage.lines.some((l) => l.includes('ci-ca.pe[m]'));
      const parent = all.find((s) => s.name === stage.from);
      const inheritsCa = parent?.lines.some((l) => l.includes('ci-ca.pe[m]')) ?? false;
      if (copiesCa || inheritsCa) expect(stage.lines.join('\n'), stage.name).toMatch(/rm -f ci-ca\.pem/);
    }
  });

  it('labels the image (OCI) and passes the release as a build argument', () => {
    if (path.startsWith('deploy/')) return; // development tools: no release of ours to record
    expect(final.lines).toContain('ARG RELEASE=dev');
    expect(final.lines).toContain('ARG REVISION=unknown');
    expect(final.lines).toContain('ARG VERSION=dev');
    const labels = final.lines.join('\n');
    for (const [key, arg] of [
      ['org.opencontainers.image.source', 'SOURCE'],
      ['org.opencontainers.image.revision', 'REVISION'],
      ['org.opencontainers.image.version', 'VERSION'],
      ['io.sentry.release', 'RELEASE'],
    ]) {
      expect(labels).toContain(`${key}="\${${arg}}"`);
    }
  });
});

describe('the base image', () => {
  it('is built by setup under its own name, never the official one it would shadow', () => {
    const setup = readFileSync(`${repoRoot}scripts/machine/setup.sh`, 'utf8');
    const make = readFileSync(`${repoRoot}scripts/machine/make-base-image.sh`, 'utf8');
    expect(setup).toContain(`docker image inspect ${LOCAL_BASE} `);
    expect(make).toMatch(/^LOCAL=localhost\/ssr-telemetry$/m);
    for (const line of make.split('\n').filter((l) => /docker (build|import|tag)/.test(l))) {
      expect(line).not.toMatch(/ -t "?node:| - "?debian:| "?debian:bookworm-slim"? *$/);
    }
  });

  it.each(['packages/test-kit/src/docker.ts', 'scripts/release/images.ts'])(
    '%s passes the local base to every build as NODE_IMAGE',
    (path) => {
      const text = readFileSync(`${repoRoot}${path}`, 'utf8');
      expect(text).toContain(`process.env.NODE_IMAGE || '${LOCAL_BASE}'`);
      // One NODE_IMAGE argument per `docker build` the file runs.
      const builds = text.match(/'build', '-q'/g) ?? [];
      expect(builds.length, path).toBeGreaterThan(0);
      expect(text.match(/NODE_IMAGE=\$\{BASE_IMAGE\}|NODE_IMAGE: BASE_IMAGE,/g) ?? []).toHaveLength(builds.length);
    },
  );
});

describe('the services in one Dockerfile', () => {
  const all = stages(readFileSync(`${repoRoot}Dockerfile`, 'utf8'));
  /** The stages a stage needs: what it is built FROM and what it copies --from, transitively. */
  function needs(name: string, seen = new Set<string>()): Set<string> {
    const stage = all.find((s) => s.name === name);
    if (!stage || seen.has(name)) return seen;
    seen.add(name);
    for (const other of [stage.from, ...stage.lines.flatMap((l) => /--from=(\S+)/.exec(l)?.[1] ?? [])]) {
      needs(other, seen);
    }
    return seen;
  }

  it('orders the stages so the legacy builder, which builds every stage before the target, builds only what the relay needs', () => {
    const relay = all.findIndex((s) => s.name === 'telemetry-relay');
    const before = all.slice(0, relay + 1).map((s) => s.name);
    expect(new Set(before)).toEqual(needs('telemetry-relay'));
  });

  it('shares the Node filesystem and the runtime stage, and neither image needs the other service', () => {
    for (const [service, other] of [
      ['telemetry-relay', 'web'],
      ['web', 'relay-'],
    ] as const) {
      const needed = needs(service);
      expect(needed.has('rootfs') && needed.has('runtime') && needed.has('manifests'), service).toBe(true);
      expect(
        [...needed].filter((name) => name !== service && name.startsWith(other)),
        service,
      ).toEqual([]);
    }
  });
});

describe('workspace manifests in the service Dockerfiles', () => {
  it('copies every workspace package.json, because npm ci checks the whole tree against the lockfile', () => {
    const lock = JSON.parse(readFileSync(`${repoRoot}package-lock.json`, 'utf8')) as {
      packages: Record<string, { link?: boolean }>;
    };
    const workspaces = Object.keys(lock.packages)
      .filter((key) => key !== '' && !key.startsWith('node_modules/') && !key.includes('/node_modules/'))
      .sort();
    const copied = [...readFileSync(`${repoRoot}Dockerfile`, 'utf8').matchAll(/^COPY (\S+)\/package\.json /gm)]
      .map((m) => m[1])
      .sort();
    expect(copied).toEqual(workspaces);
  });
});

describe('licence labels', () => {
  it.each(images.filter((i) => i.path === 'Dockerfile'))(
    '$image declares the licence of the repository LICENSE (Apache-2.0)',
    ({ final }) => {
      expect(readFileSync(`${repoRoot}LICENSE`, 'utf8')).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
      expect(final.lines.join('\n')).toMatch(/org\.opencontainers\.image\.licenses="Apache-2\.0"/);
    },
  );
});
