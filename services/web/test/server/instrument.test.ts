// instrument.ts run as production runs it (node --import): the options the Node SDK starts with for each setting.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ConfigError } from '@app/service-kit';
import { getTunnelPath } from '@sentry/core';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/config.ts';

const instrument = new URL('../../src/server/instrument.ts', import.meta.url).pathname;
const DSN = 'https://key@o1.ingest.example/1';

/** Runs instrument.ts as production does (node --import) and reports the options the Node SDK was started with. */
async function sdkOptionsWith(env: Record<string, string>) {
  const probe = `const { getClient } = await import('@sentry/node');
    const options = getClient()?.getOptions();
    console.log(JSON.stringify(options ? { rate: options.tracesSampleRate, tunnel: options.tunnel ?? null } : null));`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', instrument, '--input-type=module', '-e', probe],
    { env: { PATH: process.env.PATH, SENTRY_DSN: DSN, ...env } },
  );
  return JSON.parse(stdout);
}

describe('instrument.ts reads the Sentry settings as config.ts does', () => {
  it('starts the SDK with the configured rate and the relay the tunnel path forwards to', async () => {
    const env = { SENTRY_TRACES_SAMPLE_RATE: '0.3', TUNNEL_TARGET: 'http://relay:3001' };
    expect(await sdkOptionsWith(env)).toEqual({ rate: 0.3, tunnel: `http://relay:3001${getTunnelPath(DSN)}` });
    expect(loadConfig(env).sentry.tracesSampleRate).toBe(0.3);
  });

  // Each value config.ts refuses used to start the SDK anyway (1e-1 as 0.1, 2 as 0.1, the relative path and the
  // ftp URL as they were): now the SDK stays off and config.ts stops the process naming the variable.
  it.each([
    ['SENTRY_TRACES_SAMPLE_RATE', '1e-1'],
    ['SENTRY_TRACES_SAMPLE_RATE', '2'],
    ['TUNNEL_PATH', 'monitoring'],
    ['SERVER_TUNNEL_URL', 'ftp://relay'],
  ])('%s=%s: config.ts refuses it and the SDK is not started with it', async (name, value) => {
    const env = { TUNNEL_TARGET: 'http://relay:3001', [name]: value };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
    expect(await sdkOptionsWith(env)).toBeNull();
  });
});
