// `npm run check:blockers`: every URL of the local configuration (tunnel, CSP reports, each emitted asset) with the
// rule that would block it; the derived path passes, a path EasyPrivacy blocks fails naming its rule.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

async function checkBlockers(env: Record<string, string>): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['scripts/check-blockers.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH, ...env },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const { code, stdout = '', stderr = '' } = error as { code: number; stdout?: string; stderr?: string };
    return { code, output: stdout + stderr };
  }
}

// Each run may build the web service and builds uBlock Origin's engine with its lists.
describe('npm run check:blockers', { timeout: 300_000 }, () => {
  it('passes the path derived from the DSN, its CSP report URL and every asset, each on a line', async () => {
    const { code, output } = await checkBlockers({ SENTRY_DSN: 'https://0123abcd@o4507.ingest.de.sentry.io/42' });
    expect(code, output).toBe(0);
    expect(output).toMatch(/^ {2}tunnel +http:\/\/localhost:3000\/[0-9a-z]+ {2}passes$/m);
    expect(output).toMatch(/^ {2}CSP reports +http:\/\/localhost:3000\/[0-9a-z]+\/r\?k=\S+ {2}passes$/m);
    expect(
      output.match(/^ {2}asset +http:\/\/localhost:3000\/assets\/[\w-]+\.(js|css) {2}passes$/gm)?.length,
    ).toBeGreaterThan(5);
    expect(output).toContain('0 blocked');
  });

  it.each([
    ['/api/events', 'BLOCKED by /api/events|$ping,~third-party (easyprivacy, ping)', 1],
    ['/monitoring', 'passes; at risk: /monitoring (site-rules-applied-to-all, xmlhttprequest)', 0],
  ])('names the rule for TUNNEL_PATH=%s: %s', async (path, verdict, exit) => {
    const { code, output } = await checkBlockers({ TUNNEL_PATH: path });
    expect(code, output).toBe(exit);
    expect(output).toContain(`tunnel      http://localhost:3000${path}  ${verdict}`);
  });
});
