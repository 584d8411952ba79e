// One capture server and one relay allowed to send to it, for the tests of a file or a describe block: started
// before them, closed after them (the relay first, then the upstream, then the temp dirs the relay made).
import { type CaptureServer, startCaptureServer } from '@app/test-kit';
import { afterAll, beforeAll } from 'vitest';
import { type RunningRelay, removeTempDirs, startRelay } from './helpers.ts';

export interface RelayUnderTest {
  capture: CaptureServer;
  /** The capture server's DSN for `project`, the relay's ALLOWED_DSNS. */
  dsn: string;
  relay: RunningRelay;
}

/**
 * Registers the hooks and returns the handle their tests read (its fields are set once the tests run). Hooks the
 * caller registers later run after this one's beforeAll and before its afterAll (vitest runs after-hooks as a stack).
 */
export function withRelay(
  env: Record<string, string> = {},
  project: { projectId: string; publicKey: string } = { projectId: '42', publicKey: 'abc' },
): RelayUnderTest {
  const under = {} as RelayUnderTest;
  beforeAll(async () => {
    under.capture = await startCaptureServer();
    under.dsn = under.capture.dsn(project);
    under.relay = await startRelay({ ALLOWED_DSNS: under.dsn, ...env });
  });
  afterAll(async () => {
    await under.relay?.close();
    await under.capture?.close();
    removeTempDirs();
  });
  return under;
}
