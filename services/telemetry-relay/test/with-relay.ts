// The relay in this process on loopback, and one setup for a file's tests: a capture upstream and the relays sending
// to it (one for the file, or one per test), cleaned up after them. The generic parts are test-kit's.

import { fileURLToPath } from 'node:url';
import type { Readiness } from '@app/service-kit';
import { closeAfterTest, type ServiceProcess, spawnService, tempDir } from '@app/test-kit';
import { type CaptureUnderTest, DEFAULT_PROJECT, type Project, withCapture } from '@app/test-kit/with-capture';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import type { BuildOptions } from '../src/app.ts';
import { type Config, loadConfig } from '../src/config.ts';

/** A configuration as the environment would give it, with a fresh spool directory and quiet logs. */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    LOG_LEVEL: 'silent',
    SPOOL_DIR: tempDir('relay-test-'),
    TUNNEL_PATH: '/monitoring',
    PORT: '0',
    HOST: '127.0.0.1',
    ...env,
  });
}

/** The relay's entry point, as its image runs it: for the tests of the process itself. */
export const RELAY_ENTRY = fileURLToPath(new URL('../src/main.ts', import.meta.url));

/** The relay as a real process on a loopback port, with a fresh spool directory and the tests' tunnel path. */
export function spawnRelay(env: Record<string, string>): Promise<ServiceProcess> {
  return spawnService(RELAY_ENTRY, { env: { TUNNEL_PATH: '/monitoring', SPOOL_DIR: tempDir('relay-test-'), ...env } });
}

export interface RunningRelay {
  url: string;
  tunnel: string;
  app: FastifyInstance;
  readiness: Readiness;
  config: Config;
  close(): Promise<void>;
}

/** The relay in this process on a loopback port (buildApp + listen), for tests that need real HTTP. */
export async function startRelay(env: Record<string, string>, build: BuildOptions = {}): Promise<RunningRelay> {
  const { buildApp } = await import('../src/app.ts');
  const config = testConfig(env);
  const { app, readiness } = await buildApp(config, build);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  return { url, tunnel: `${url}${config.tunnelPaths[0]}`, app, readiness, config, close: () => app.close() };
}

export interface UpstreamUnderTest extends CaptureUnderTest {
  /** A relay allowed to send to the capture server (unless `env` says otherwise), closed after the test. */
  relayWith(env?: Record<string, string>, build?: BuildOptions): Promise<RunningRelay>;
}

/** A capture upstream for the file's tests, each starting the relays it needs with `relayWith`. */
export function withUpstream(): UpstreamUnderTest {
  const under = withCapture() as UpstreamUnderTest;
  under.relayWith = async (env = {}, build = {}) =>
    closeAfterTest(await startRelay({ ALLOWED_DSNS: under.dsn, ...env }, build));
  return under;
}

export interface RelayUnderTest extends UpstreamUnderTest {
  /** The file's relay, allowed to send to the capture server for `project`. */
  relay: RunningRelay;
}

type RelayEnv = Record<string, string> | ((upstream: CaptureUnderTest) => Record<string, string>);

/**
 * `withUpstream` plus one relay for the file (or describe block), started before its tests and closed after them;
 * `env` may be read off the capture server (a second project's DSN, its URL as UPSTREAM_URL). Hooks the caller
 * registers later run after this one's beforeAll and before its afterAll.
 */
export function withRelay(env: RelayEnv = {}, project: Project = DEFAULT_PROJECT): RelayUnderTest {
  const under = withUpstream() as RelayUnderTest;
  beforeAll(async () => {
    if (project !== DEFAULT_PROJECT) under.dsn = under.capture.dsn(project);
    under.relay = await startRelay({ ALLOWED_DSNS: under.dsn, ...(typeof env === 'function' ? env(under) : env) });
  });
  afterAll(() => under.relay?.close());
  return under;
}
