// The alert rules as Prometheus reads them: promtool checks their PromQL and runs unit tests
// (fixtures/alert-rules.test.yaml) that feed series in and assert which alerts fire, when, with which labels.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { renderOverlay } from './support/manifests.ts';

const run = promisify(execFile);
const dir = fileURLToPath(new URL('../.cache/alerts/', import.meta.url));

async function promtool(...args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run(process.env.PROMTOOL ?? 'promtool', args, { cwd: dir });
    return stdout + stderr;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`promtool ${args.join(' ')} failed:\n${stdout}${stderr}`);
  }
}

describe('alert rules', () => {
  beforeAll(async () => {
    const rule = (await renderOverlay('prod')).find((o) => o.kind === 'PrometheusRule');
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${dir}rules.yaml`, stringify(rule?.spec));
    copyFileSync(
      fileURLToPath(new URL('fixtures/alert-rules.test.yaml', import.meta.url)),
      `${dir}alert-rules.test.yaml`,
    );
  });

  it('parse as valid Prometheus rules (promtool check rules)', async () => {
    expect(await promtool('check', 'rules', 'rules.yaml')).toMatch(/SUCCESS: 8 rules found/);
  });

  it('fire on what they are for and not on their look-alikes (promtool test rules)', async () => {
    expect(await promtool('test', 'rules', 'alert-rules.test.yaml')).toMatch(/SUCCESS/);
  });
});
