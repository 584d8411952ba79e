// The checks CI runs besides the tests, as tests: the pinned Node version, Biome, and tsc over every workspace.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url);

async function check(command: string, args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd: root, maxBuffer: 16 * 1024 * 1024 });
    return stdout + stderr;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout}${stderr}`);
  }
}

describe('static checks', () => {
  it('runs on the Node version pinned in .nvmrc', () => {
    const pinned = readFileSync(new URL('.nvmrc', root), 'utf8').trim();
    expect(process.versions.node).toBe(pinned);
  });

  it('passes lint and format (biome ci)', async () => {
    await check('biome', ['ci', '--reporter=summary', '.']);
  }, 60_000);

  it('type-checks every workspace (tsc -b)', async () => {
    await check('tsc', ['-b']);
  }, 120_000);
});
