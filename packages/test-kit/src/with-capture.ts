// A capture server for the tests of a file (or a describe block), and the cleanup every service test needs after it.
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type CaptureServer, startCaptureServer } from './capture-server.ts';
import { closeOpened, removeTempDirs } from './cleanup.ts';

export interface Project {
  projectId: string;
  publicKey: string;
}

export const DEFAULT_PROJECT: Project = { projectId: '42', publicKey: 'abc' };

export interface CaptureUnderTest {
  capture: CaptureServer;
  /** The capture server's DSN for the default project (42, key abc). */
  dsn: string;
}

/**
 * Registers the hooks and returns the handle their tests read (set once the tests run): the capture server started
 * before them; after each test what it opened closed (`closeAfterTest`); after all of them the server closed, then
 * the temp dirs removed. Vitest runs after-hooks as a stack: the caller's, registered later, run first.
 */
export function withCapture(): CaptureUnderTest {
  const under = {} as CaptureUnderTest;
  beforeAll(async () => {
    under.capture = await startCaptureServer();
    under.dsn = under.capture.dsn(DEFAULT_PROJECT);
  });
  afterEach(closeOpened);
  afterAll(async () => {
    await under.capture?.close();
    removeTempDirs();
  });
  return under;
}
