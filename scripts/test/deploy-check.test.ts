// `npm run deploy:check -- <overlay>`: the shipped overlays fail naming every placeholder; a copy with the operator's
// values set passes and renders them where they belong; one value left is named alone.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseOperatorEnv, placeholderReasons } from '../release/preflight.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));

async function deployCheck(overlay: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/deploy-check.ts', overlay], { cwd: root });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const { code, stdout = '', stderr = '' } = error as { code: number; stdout?: string; stderr?: string };
    return { code, output: stdout + stderr };
  }
}

/** What an operator of example.org's shop would write into operator.env. */
const SET: Record<string, string> = {
  HOST: 'shop.acme.io',
  RUNBOOK_BASE_URL: 'https://git.acme.io/ops/ssr-telemetry/blob/main/docs/runbook.md',
  SENTRY_INTAKE_CIDR: '34.120.195.0/24',
  SENTRY_DSN: 'https://0123abcd@o4507.ingest.de.sentry.io/42',
  ALLOWED_DSNS: 'https://0123abcd@o4507.ingest.de.sentry.io/42',
  // What deploy:check prints as the path `tunnel: true` derives from SENTRY_DSN.
  TUNNEL_PATH: tunnelPathOf('https://0123abcd@o4507.ingest.de.sentry.io/42') as string,
};

/** operator.env with every value in `values` set (its OPERATOR MUST SET marker deleted, as the file asks). */
function setValues(path: string, values: Record<string, string>): void {
  const nameOf = (line = '') => /^([A-Z_]+)=/.exec(line)?.[1] ?? '';
  const lines = readFileSync(path, 'utf8').split('\n');
  const out = lines.flatMap((line, i) => {
    if (line.trim() === '# OPERATOR MUST SET' && nameOf(lines[i + 1]) in values) return [];
    const name = nameOf(line);
    return name in values ? [`${name}=${values[name]}`] : [line];
  });
  writeFileSync(path, out.join('\n'));
}

describe('placeholders', () => {
  it.each([
    ['app.example.com', 'an example domain'],
    ['https://ssr-telemetry.dev.example.org/x', 'an example domain'],
    ['shop.example', 'an example domain'],
    ['registry.example.com/ssr-telemetry/web:0.1.0', 'an example domain'],
    ['https://github.com/example/ssr-telemetry/blob/main/docs/runbook.md', 'the example repository'],
    ['203.0.113.0/24', 'a documentation address (TEST-NET)'],
    ['198.51.100.7/32', 'a documentation address (TEST-NET)'],
    ['https://examplePublicKey@o0.ingest.sentry.io/2', "Sentry's example DSN"],
    ['https://devPublicKey@o0.ingest.sentry.io/1', "Sentry's example DSN"],
  ])('%s is %s', (value, why) => {
    expect(placeholderReasons(value)).toContain(why);
  });

  it.each([
    'shop.acme.io',
    'myexample.com',
    'example.company.io',
    'https://github.com/examples/x',
    '34.120.195.249/32',
    '10.203.0.1130/32',
    'https://key@o0123.ingest.sentry.io/2',
    'shared-gateway',
  ])('%s is not a placeholder', (value) => {
    expect(placeholderReasons(value)).toEqual([]);
  });

  it('reads operator.env as kustomize does, remembering the OPERATOR MUST SET marker of the value below it', () => {
    const text = '# comment\nA=1\n# OPERATOR MUST SET\nB=x=y\n\nC=\n# OPERATOR MUST SET\n# more words\nD=4\n';
    expect(parseOperatorEnv(text)).toEqual([
      { name: 'A', value: '1', marked: false },
      { name: 'B', value: 'x=y', marked: true },
      { name: 'C', value: '', marked: false },
      { name: 'D', value: '4', marked: true },
    ]);
  });
});

// Each run renders the overlay and builds uBlock Origin's engine with its lists (seconds).
describe('npm run deploy:check', { timeout: 60_000 }, () => {
  let work: string;
  beforeAll(() => {
    work = mkdtempSync(`${tmpdir()}/deploy-check-`);
    cpSync(`${root}deploy/k8s`, `${work}/k8s`, { recursive: true });
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it.each([
    ['prod', 'app.example.com', 8],
    ['dev', 'ssr-telemetry.dev.example.com', 6],
  ])('fails on the shipped %s overlay, naming each placeholder', async (overlay, host, count) => {
    const { code, output } = await deployCheck(overlay);
    expect(code, output).toBe(1);
    expect(output).toContain(`deploy/k8s/overlays/${overlay}: ${count} placeholder(s) left`);
    expect(output).toContain(`HOST=${host}  (an example domain)`);
    expect(output).toMatch(/RUNBOOK_BASE_URL=https:\/\/github\.com\/example\/\S+ {2}\(the example repository\)/);
    expect(output).toContain('SENTRY_INTAKE_CIDR=34.120.195.249/32  (marked OPERATOR MUST SET)');
    expect(output).toMatch(/SENTRY_DSN=\S+@o0\.ingest\.sentry\.io\/\d {2}\(Sentry's example DSN\)/);
    expect(output).toMatch(/ALLOWED_DSNS=\S+@o0\.ingest\.sentry\.io\/\d {2}\(Sentry's example DSN\)/);
    // The shipped path is the example DSN's: every deployment that kept it would share it.
    expect(output).toMatch(/TUNNEL_PATH=\/\w+ {2}\(marked OPERATOR MUST SET\)/);
    if (overlay === 'prod') {
      expect(output).toContain('Deployment/web spec.template.spec.containers.0.image=registry.example.com/');
      expect(output).toContain(
        'StatefulSet/telemetry-relay spec.template.spec.containers.0.image=registry.example.com/',
      );
    }
  });

  it('passes once every value is set, and the render carries them where they belong', async () => {
    const overlay = `${work}/k8s/overlays/prod`;
    setValues(`${overlay}/operator.env`, SET);
    const kustomization = readFileSync(`${overlay}/kustomization.yaml`, 'utf8');
    writeFileSync(
      `${overlay}/kustomization.yaml`,
      kustomization.replaceAll('registry.example.com', 'registry.acme.io'),
    );
    const { code, output } = await deployCheck(overlay);
    expect(code, output).toBe(0);
    expect(output).toMatch(/no placeholders in the \d+ rendered objects/);
    expect(output).toContain(`tunnel path ${SET.TUNNEL_PATH} (derived from SENTRY_DSN): no rule of uBlock Origin's`);

    const { stdout } = await run('kubectl', ['kustomize', overlay], { maxBuffer: 32 * 1024 * 1024 });
    expect(stdout).toContain('PUBLIC_ORIGIN: https://shop.acme.io\n');
    expect(stdout).toContain(`SENTRY_DSN: ${SET.SENTRY_DSN}\n`);
    expect(stdout).toContain(`ALLOWED_DSNS: ${SET.ALLOWED_DSNS}\n`);
    expect(stdout).toContain(`cidr: ${SET.SENTRY_INTAKE_CIDR}\n`);
    expect(stdout).toContain('  - shop.acme.io\n');
    expect(stdout).toContain(`runbook_url: ${SET.RUNBOOK_BASE_URL}#webhigh5xxrate\n`);
    // The one tunnel path: both services, the server SDK's URL, the edge's route.
    expect(stdout.split(`TUNNEL_PATH: ${SET.TUNNEL_PATH}\n`)).toHaveLength(3);
    expect(stdout).toContain(`SERVER_TUNNEL_URL: http://telemetry-relay${SET.TUNNEL_PATH}\n`);
    expect(stdout).toContain(`value: ${SET.TUNNEL_PATH}\n`);
  });

  // EasyPrivacy's `/api/events|$ping,~third-party`: the page-hide beacon (a ping) would never arrive.
  it('warns about a custom tunnel path a filter list blocks, naming the rule and its list', async () => {
    const overlay = `${work}/k8s/overlays/prod`;
    setValues(`${overlay}/operator.env`, { ...SET, TUNNEL_PATH: '/api/events' });
    const { code, output } = await deployCheck(overlay);
    expect(code, output).toBe(0);
    expect(output).toContain(`WARNING: tunnel path /api/events (custom; SENTRY_DSN derives ${SET.TUNNEL_PATH})`);
    expect(output).toContain(
      'https://shop.acme.io/api/events  BLOCKED by /api/events|$ping,~third-party (easyprivacy, ping)',
    );
  });

  it('names the one value left, here a CIDR still marked OPERATOR MUST SET', async () => {
    const overlay = `${work}/k8s/overlays/dev`;
    const { SENTRY_INTAKE_CIDR: _left, ...others } = SET;
    setValues(`${overlay}/operator.env`, others);
    const { code, output } = await deployCheck(overlay);
    expect(code, output).toBe(1);
    expect(output).toContain('1 placeholder(s) left');
    expect(output).toContain('SENTRY_INTAKE_CIDR=34.120.195.249/32  (marked OPERATOR MUST SET)');
  });

  it('refuses an overlay that does not exist (exit 2)', async () => {
    const { code, output } = await deployCheck('staging');
    expect(code).toBe(2);
    expect(output).toMatch(/no kustomization\.yaml in \S+staging/);
  });
});
