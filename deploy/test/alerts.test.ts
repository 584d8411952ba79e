// The alert rules as Prometheus reads them: promtool checks their PromQL and runs unit tests
// (fixtures/alert-rules.test.yaml) that feed series in and assert which alerts fire, when, with which labels.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type Manifest, ruleGroups } from '../prometheus/config.ts';
import { renderOverlay } from './support/manifests.ts';
import { promtool } from './support/promql.ts';

const dir = fileURLToPath(new URL('../.cache/alerts/', import.meta.url));

describe('alert rules', () => {
  beforeAll(async () => {
    const groups = ruleGroups((await renderOverlay('prod')) as Manifest[]);
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${dir}rules.yaml`, stringify({ groups }));
    copyFileSync(
      fileURLToPath(new URL('fixtures/alert-rules.test.yaml', import.meta.url)),
      `${dir}alert-rules.test.yaml`,
    );
  });

  it('parse as valid Prometheus rules (promtool check rules)', async () => {
    expect(await promtool(['check', 'rules', 'rules.yaml'], dir)).toMatch(/SUCCESS: 15 rules found/);
  });

  it('fire on what they are for and not on their look-alikes (promtool test rules)', async () => {
    expect(await promtool(['test', 'rules', 'alert-rules.test.yaml'], dir)).toMatch(/SUCCESS/);
  });
});
