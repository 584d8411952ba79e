// The projects file (PROJECTS_FILE): its schema and the checks a schema cannot make, each problem named by its path
// in the file; what a good file becomes; the environment as the one-project shorthand.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '@app/service-kit';
import { ignoreRules } from '@app/telemetry-rules';
import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';
import { removeTempDirs, tempDir } from '@app/test-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCRUB_SETTINGS } from '../../src/pii/index.ts';
import { DEFAULT_FILTER_IDS } from '../../src/pipeline/inbound-filters/settings.ts';
import { NO_QUOTAS } from '../../src/pipeline/quota/settings.ts';
import { projectsFromDocument } from '../../src/projects/document.ts';
import { readProjectsFile } from '../../src/projects/file.ts';
import { PROJECTS_SCHEMA } from '../../src/projects/schema.ts';
import { testConfig } from '../with-relay.ts';

afterAll(removeTempDirs);

const A = 'https://aaaa@o1.ingest.sentry.io/1';
const B = 'https://bbbb@o1.ingest.sentry.io/2';
const one = (project: Record<string, unknown>) => ({ projects: { [A]: { origins: [], ...project } } });
const problemsOf = (document: unknown, derivedTunnelPaths?: string[]) => {
  const result = projectsFromDocument(document, { derivedTunnelPaths });
  return 'problems' in result ? result.problems.map((p) => `${p.path}: ${p.message}`) : [];
};

describe('a projects file refused, every problem named by its path', () => {
  it.each<[string, unknown, string[]]>([
    ['not an object', [], ['(the file): must be object']],
    ['no projects', {}, ['projects: is required']],
    ['no project', { projects: {} }, ['projects: must NOT have fewer than 1 properties']],
    ['an unknown top-level key', { ...one({}), project: {} }, ['project: is not a setting the relay knows']],
    [
      'a key that is no URL',
      { projects: { 'aaaa@sentry.io/1': { origins: [] } } },
      ['projects["aaaa@sentry.io/1"]: is not a DSN (http(s)://<key>@<host>/<project id>, at most 512 characters)'],
    ],
    [
      'a DSN without a key',
      { projects: { 'https://o1.ingest.sentry.io/1': { origins: [] } } },
      ['projects["https://o1.ingest.sentry.io/1"]: is not a DSN: it has no public key'],
    ],
    [
      'a DSN without a project id',
      { projects: { 'https://k@sentry.io/x': { origins: [] } } },
      ['projects["https://k@sentry.io/x"]: is not a DSN: it must end with a numeric project id'],
    ],
    [
      'one project twice (the secret differs)',
      { projects: { [A]: { origins: [] }, [A.replace('aaaa@', 'aaaa:s@')]: { origins: [] } } },
      [`projects["${A.replace('aaaa@', 'aaaa:s@')}"]: is the same project and key as projects["${A}"]`],
    ],
    ['no origins', { projects: { [A]: {} } }, [`projects["${A}"].origins: is required`]],
    [
      'quotas the quota module refuses, each named',
      one({
        quotas: {
          limits: [{ categories: ['error'], limit: -1, window: 60 }],
          spikeShield: { threshold: 'x' },
          pageToken: { secretEnv: 'NO_SUCH_PAGE_TOKEN_SECRET' },
          extra: 1,
        },
      }),
      [
        `projects["${A}"].quotas: unknown setting "extra" (known: limits, spikeShield, pageToken)`,
        `projects["${A}"].quotas.limits[0].limit: must be an integer from 0 to 1000000000000 (got -1)`,
        `projects["${A}"].quotas.spikeShield.threshold: must be an integer from 1 to 1000000000 (got "x")`,
        `projects["${A}"].quotas.pageToken.secretEnv: NO_SUCH_PAGE_TOKEN_SECRET is not set`,
      ],
    ],
    [
      'an origin with a path',
      one({ origins: ['https://app.example.com/'] }),
      [
        `projects["${A}"].origins[0]: must be an origin: http(s)://host[:port], without a path, wildcard or trailing slash`,
      ],
    ],
    [
      'a wildcard origin',
      one({ origins: ['https://*.example.com'] }),
      [
        `projects["${A}"].origins[0]: must be an origin: http(s)://host[:port], without a path, wildcard or trailing slash`,
      ],
    ],
    [
      'an origin not as the browser sends it',
      one({ origins: ['https://App.example.com:443'] }),
      [
        `projects["${A}"].origins[0]: must be an origin as the browser sends it: http(s)://host[:port] (https://app.example.com)`,
      ],
    ],
    ['an origin that is not a string', one({ origins: [42] }), [`projects["${A}"].origins[0]: must be string`]],
    [
      'an unknown project setting',
      one({ scrubbing: {} }),
      [`projects["${A}"].scrubbing: is not a setting the relay knows`],
    ],
    [
      'an unknown scrub setting',
      one({ scrub: { scrubIPs: true } }),
      [`projects["${A}"].scrub.scrubIPs: is not a setting the relay knows`],
    ],
    [
      'a scrub switch that is no boolean',
      one({ scrub: { strict: 'yes' } }),
      [`projects["${A}"].scrub.strict: must be boolean`],
    ],
    [
      'a sensitive field with a control character',
      one({ scrub: { sensitiveFields: ['a\nb'] } }),
      [`projects["${A}"].scrub.sensitiveFields[0]: must not contain control characters`],
    ],
    [
      'a safe field too long',
      one({ scrub: { safeFields: ['x'.repeat(201)] } }),
      [`projects["${A}"].scrub.safeFields[0]: is longer than 200 characters`],
    ],
    [
      'an unknown inbound filter',
      one({ inboundFilters: { filters: ['chrome-extensions'] } }),
      [`projects["${A}"].inboundFilters.filters: names an unknown filter "chrome-extensions" (known: `],
    ],
    [
      'an empty glob',
      one({ inboundFilters: { releases: [''] } }),
      [`projects["${A}"].inboundFilters.releases[0]: must not be empty`],
    ],
    [
      'an unknown ignore rule',
      one({ ignoreRules: ['script-errors'] }),
      [
        `projects["${A}"].ignoreRules: names an unknown rule "script-errors" (known: ${ignoreRules.map((r) => r.id).join(', ')}, or all/none)`,
      ],
    ],
    [
      'every problem of a file with many, at once',
      {
        projects: {
          [A]: { origins: ['https://a.example.com/x'], scrub: { scrubData: 1 } },
          [B]: { origins: ['https://B.example.com'], inboundFilters: { filters: ['bogus'] }, ignoreRules: ['nope'] },
          'https://k@sentry.io/x': { origins: [] },
        },
        extra: true,
      },
      [
        'extra: is not a setting the relay knows',
        `projects["${A}"].origins[0]: must be an origin: http(s)://host[:port], without a path, wildcard or trailing slash`,
        `projects["${A}"].scrub.scrubData: must be boolean`,
        `projects["${B}"].origins[0]: must be an origin as the browser sends it: http(s)://host[:port] (https://b.example.com)`,
        `projects["${B}"].ignoreRules: names an unknown rule "nope"`,
        `projects["${B}"].inboundFilters.filters: names an unknown filter "bogus"`,
        'projects["https://k@sentry.io/x"]: is not a DSN: it must end with a numeric project id',
      ],
    ],
  ])('%s', (_name, document, expected) => {
    const problems = problemsOf(document);
    expect(problems).toHaveLength(expected.length);
    for (const [i, line] of expected.entries()) expect(problems[i]).toContain(line);
  });

  it('a DSN deriving a tunnel path the relay does not serve (TUNNEL_PATH unset, paths derived at start)', () => {
    expect(problemsOf(one({}), ['/other'])).toEqual([
      `projects["${A}"]: derives the tunnel path ${tunnelPathOf(A)} this relay does not serve (set TUNNEL_PATH, or restart to serve it)`,
    ]);
    expect(problemsOf(one({}), [tunnelPathOf(A) as string])).toEqual([]);
  });
});

describe('a good projects file', () => {
  it('gives each DSN its settings, the unset ones at the defaults, quotas parsed by the quota module', () => {
    const quotas = { limits: [{ categories: ['error'], limit: 10, window: 60 }], spikeShield: { threshold: 50 } };
    const result = projectsFromDocument({
      projects: {
        [A]: {
          origins: ['https://app.example.com', 'http://localhost:3000'],
          scrub: { scrubIpAddresses: true, sensitiveFields: ['order_secret'] },
          inboundFilters: { filters: ['none'], errorMessages: ['*ResizeObserver*'] },
          ignoreRules: ['none'],
          quotas,
        },
        [B]: { origins: [] },
      },
    });
    if ('problems' in result) throw new Error(JSON.stringify(result.problems));
    const [a, b] = result.projects;
    expect(a).toMatchObject({
      origins: ['https://app.example.com', 'http://localhost:3000'],
      scrub: { ...DEFAULT_SCRUB_SETTINGS, scrubIpAddresses: true, sensitiveFields: ['order_secret'] },
      inboundFilters: { ids: [], errorMessages: ['*ResizeObserver*'], releases: [] },
      ignoreRules: [],
    });
    expect(a?.quotas.quotas.map((q) => [q.categories, q.limit, q.window])).toEqual([[['error'], 10, 60]]);
    expect(a?.quotas.spikeShield).toMatchObject({ threshold: 50 });
    expect(a?.dsns.map((d) => d.projectId)).toEqual(['1']);
    expect(b).toMatchObject({
      origins: [],
      scrub: DEFAULT_SCRUB_SETTINGS,
      inboundFilters: { ids: DEFAULT_FILTER_IDS, errorMessages: [], releases: [] },
      quotas: NO_QUOTAS,
    });
    expect(b?.ignoreRules).toHaveLength(ignoreRules.length);
  });

  it.each([
    ['projects.json', JSON.stringify({ projects: { [A]: { origins: ['https://app.example.com'] } } })],
    [
      'projects.yaml',
      `projects:\n  "${A}":\n    origins: [https://app.example.com]\n    quotas: {spikeShield: {threshold: 5}}\n`,
    ],
  ])('reads %s', (name, text) => {
    const path = join(tempDir(), name);
    writeFileSync(path, text);
    const result = readProjectsFile(path);
    if ('problems' in result) throw new Error(JSON.stringify(result.problems));
    expect(result.projects[0]?.origins).toEqual(['https://app.example.com']);
    expect(result.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['projects.json', '{"projects": {', /^\(the file\): is not JSON: /],
    ['projects.yaml', 'projects: [unclosed', /^\(the file\): is not YAML: /],
    ['missing.json', undefined, /^\(the file\): cannot be read: ENOENT/],
  ])('refuses %s that does not parse, saying so', (name, text, message) => {
    const path = join(tempDir(), name);
    if (text !== undefined) writeFileSync(path, text);
    const result = readProjectsFile(path);
    expect('problems' in result && result.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      expect.stringMatching(message),
    ]);
  });

  it("deploy/k8s's projects.yaml: refused as shipped (no project), valid once its example is filled in", () => {
    const shipped = readFileSync(
      new URL('../../../../deploy/k8s/base/telemetry-relay/projects.yaml', import.meta.url),
      'utf8',
    );
    const asShipped = join(tempDir(), 'projects.yaml');
    writeFileSync(asShipped, shipped);
    expect(readProjectsFile(asShipped)).toEqual({
      problems: [{ path: 'projects', message: 'must NOT have fewer than 1 properties' }],
    });
    const example = shipped
      .split('\n')
      .filter((line) => line.startsWith('#   ') || line.startsWith('# projects:'))
      .map((line) => line.slice(2))
      .join('\n')
      .replace('<public key>@o<org>.ingest.sentry.io/<project id>', 'aaaa@o1.ingest.sentry.io/1');
    const filled = join(tempDir(), 'projects.yaml');
    writeFileSync(filled, example);
    const result = readProjectsFile(filled);
    expect('projects' in result && result.projects[0]?.origins).toEqual(['https://app.acme.test']);
  });

  it('the published schema is the one the relay checks with (a JSON Schema document)', () => {
    expect(PROJECTS_SCHEMA).toMatchObject({
      $schema: 'http://json-schema.org/draft-07/schema#',
      required: ['projects'],
    });
  });
});

describe('PROJECTS_FILE in the configuration', () => {
  const fileWith = (document: unknown) => {
    const path = join(tempDir(), 'projects.json');
    writeFileSync(path, JSON.stringify(document));
    return path;
  };
  const problems = (env: Record<string, string>) => {
    try {
      testConfig(env);
      return [];
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return [...error.problems];
    }
  };

  it('stops the relay naming every problem of the file, each as PROJECTS_FILE <path>: <message>', () => {
    const file = fileWith({ projects: { [A]: { origins: ['*'], scrub: { strict: 1 } } } });
    expect(problems({ PROJECTS_FILE: file })).toEqual([
      `PROJECTS_FILE projects["${A}"].origins[0]: must be an origin: http(s)://host[:port], without a path, wildcard or trailing slash`,
      `PROJECTS_FILE projects["${A}"].scrub.strict: must be boolean`,
    ]);
  });

  it('refuses per-project variables beside the file (they would silently not apply)', () => {
    const file = fileWith(one({}));
    expect(problems({ PROJECTS_FILE: file, ALLOWED_DSNS: A, SCRUB_STRICT: 'true' })).toEqual([
      'ALLOWED_DSNS is set per project in PROJECTS_FILE: remove it from the environment',
      'SCRUB_STRICT is set per project in PROJECTS_FILE: remove it from the environment',
    ]);
    expect(problems({ PROJECTS_FILE: file, QUOTA_ERRORS_PER_MINUTE: '60', SPIKE_SHIELD_THRESHOLD: '5' })).toEqual([
      'QUOTA_ERRORS_PER_MINUTE is set per project in PROJECTS_FILE: remove it from the environment',
      'SPIKE_SHIELD_THRESHOLD is set per project in PROJECTS_FILE: remove it from the environment',
    ]);
  });

  it("keeps PAGE_TOKEN_SECRET beside the file: a project's pageToken.secretEnv names it (from a Secret)", () => {
    const secret = 'a page token secret of at least 32 characters';
    const file = fileWith(one({ quotas: { pageToken: { secretEnv: 'PAGE_TOKEN_SECRET' } } }));
    const config = testConfig({ PROJECTS_FILE: file, PAGE_TOKEN_SECRET: secret });
    expect(config.projects.initial[0]?.quotas.pageToken?.secret).toBe(secret);
  });

  it('derives the tunnel paths from the file when TUNNEL_PATH is unset, and a reload must keep to them', () => {
    const config = testConfig({ PROJECTS_FILE: fileWith(one({})), TUNNEL_PATH: '' });
    expect(config.tunnelPaths).toEqual([tunnelPathOf(A)]);
    expect(config.projects.derivedTunnelPaths).toEqual([tunnelPathOf(A)]);
    expect(config.projects.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('without the file, the environment is one implicit project: every ALLOWED_DSNS entry, its variables', () => {
    const config = testConfig({ ALLOWED_DSNS: `${A},${B}`, SCRUB_STRICT: 'true', IGNORE_RULES: 'none' });
    expect(config.projects.file).toBeUndefined();
    expect(config.projects.initial).toHaveLength(1);
    expect(config.projects.initial[0]).toMatchObject({
      origins: undefined, // not checked, as before the projects file
      scrub: { ...DEFAULT_SCRUB_SETTINGS, strict: true },
      ignoreRules: [],
      quotas: NO_QUOTAS,
    });
    expect(config.projects.initial[0]?.dsns.map((d) => d.projectId)).toEqual(['1', '2']);
  });

  it.each([
    ['https://app.example.com,http://localhost:3000', []],
    [
      'https://app.example.com/',
      [
        'ALLOWED_ORIGINS entry "https://app.example.com/" must be an origin as the browser sends it: http(s)://host[:port] (https://app.example.com)',
      ],
    ],
    ['*', ['ALLOWED_ORIGINS entry "*" must be an origin as the browser sends it: http(s)://host[:port]']],
  ])('ALLOWED_ORIGINS=%s', (origins, expected) => {
    expect(problems({ ALLOWED_DSNS: A, ALLOWED_ORIGINS: origins })).toEqual(expected);
  });
});
