// The documentation's links keep working: every relative link and #anchor in the READMEs, docs/ and the changelog
// resolves, and every alert's runbook_url names a section of docs/runbook.md. Files only, no network.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { anchorsOf, brokenLinks, documentationFiles, slug } from '../doc-links.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const runbook = 'docs/runbook.md';

describe('the documentation links', () => {
  it('resolve: every relative link names an existing file, every #anchor a heading of it', () => {
    const files = documentationFiles(root);
    expect(files).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', runbook, 'docs/configuration.md']));
    expect(brokenLinks(root, files)).toEqual([]);
  });

  it('reach every topic file from the root README', () => {
    const linked = new Set(
      [...readFileSync(join(root, 'README.md'), 'utf8').matchAll(/\]\((docs\/[^)#]+)/g)].map((m) => m[1]),
    );
    const topics = documentationFiles(root).filter((f) => /^docs\/[^/]+\.md$/.test(f));
    expect(topics.filter((f) => !linked.has(f))).toEqual([]);
  });
});

describe('the checker', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  /** A tree of markdown files in a fresh directory; the checker runs over all of them. */
  function check(tree: Record<string, string>) {
    const base = mkdtempSync(join(tmpdir(), 'doc-links-'));
    dir = base;
    for (const [path, text] of Object.entries(tree)) {
      mkdirSync(dirname(join(base, path)), { recursive: true });
      writeFileSync(join(base, path), text);
    }
    return brokenLinks(base, Object.keys(tree)).map(({ file, line, problem }) => `${file}:${line} ${problem}`);
  }

  const target = '# Runbook\n\n## WebHighLatency\n\n## Relay spool: StatefulSet + PVC\n';
  it.each<[string, Record<string, string>, string[]]>([
    ['a link to a file and a heading that exist', { 'a.md': '[x](docs/b.md#webhighlatency)', 'docs/b.md': target }, []],
    ['a link within the file', { 'a.md': '# Top\n\n[up](#top)' }, []],
    ['a heading with punctuation', { 'a.md': '[x](docs/b.md#relay-spool-statefulset--pvc)', 'docs/b.md': target }, []],
    ['an absolute URL (not checked offline)', { 'a.md': '[x](https://example.com/missing.md#nowhere)' }, []],
    ['a missing file', { 'a.md': 'text\n[x](docs/gone.md)' }, ['a.md:2 no file docs/gone.md']],
    [
      'a missing anchor',
      { 'a.md': '[x](docs/b.md#webhighlatency-2)', 'docs/b.md': target },
      ['a.md:1 no heading for #webhighlatency-2 in docs/b.md'],
    ],
    ['a missing anchor in the same file', { 'a.md': '# Top\n[x](#bottom)' }, ['a.md:2 no heading for #bottom in a.md']],
    [
      'a "heading" inside a code block',
      { 'a.md': '```sh\n# not a heading\n```\n[x](#not-a-heading)' },
      ['a.md:4 no heading for #not-a-heading in a.md'],
    ],
    ['a link inside inline code (not a link)', { 'a.md': '`[x](gone.md)`' }, []],
    ['a relative link from a subfolder', { 'docs/a.md': '[x](../README.md)', 'README.md': '# R' }, []],
    [
      'a link out of the repository',
      { 'docs/a.md': '[x](../../elsewhere.md)' },
      ['docs/a.md:1 points outside the repository'],
    ],
    ['a reference definition', { 'a.md': '[x][ref]\n\n[ref]: gone.md' }, ['a.md:3 no file gone.md']],
  ])('reports %s', (_, tree, expected) => {
    expect(check(tree)).toEqual(expected);
  });

  it.each([
    ['TelemetryRelaySpoolGrowing', 'telemetryrelayspoolgrowing'],
    [
      'Checks (part of `npm test`, project `deploy`, a few seconds, no cluster)',
      'checks-part-of-npm-test-project-deploy-a-few-seconds-no-cluster',
    ],
    ['Relay spool: StatefulSet + PersistentVolumeClaim', 'relay-spool-statefulset--persistentvolumeclaim'],
    ['001 SQLite spool and body files', '001-sqlite-spool-and-body-files'],
    ['Sentry: where each report goes', 'sentry-where-each-report-goes'],
  ])('slugs the heading "%s" as GitHub does: #%s', (heading, expected) => {
    expect(slug(heading)).toBe(expected);
  });
});

interface AlertRule {
  alert?: string;
  annotations?: { runbook_url?: string };
}

describe('the alerts', () => {
  const anchors = anchorsOf(readFileSync(join(root, runbook), 'utf8'));
  const rules = ['monitoring', 'web-monitoring']
    .flatMap(
      (dir) =>
        (
          parse(readFileSync(join(root, `deploy/k8s/base/${dir}/prometheusrule.yaml`), 'utf8')) as {
            spec: { groups: { rules: AlertRule[] }[] };
          }
        ).spec.groups,
    )
    .flatMap((g) => g.rules)
    .filter((r) => r.alert);

  it.each(rules.map((r) => [r.alert, r.annotations?.runbook_url]))(
    '%s links its section of docs/runbook.md',
    (alert, url) => {
      expect(url, `${alert} has a runbook_url`).toMatch(new RegExp(`/blob/main/${runbook}#`));
      const anchor = url?.split('#')[1] ?? '';
      expect(anchors.has(anchor), `${alert}: #${anchor} is a heading of ${runbook}`).toBe(true);
    },
  );

  it.each(['base/platform/kustomization.yaml', 'overlays/dev/operator.env', 'overlays/prod/operator.env'])(
    'take their runbook base from %s: RUNBOOK_BASE_URL is docs/runbook.md',
    (file) => {
      const kustomization = readFileSync(join(root, 'deploy/k8s', file), 'utf8');
      expect(kustomization).toMatch(new RegExp(`RUNBOOK_BASE_URL=https://\\S+/blob/main/${runbook}\\n`));
    },
  );
});
