// A capture server for the tests of a file (or a describe block), and the cleanup every service test needs after it.
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type CaptureServer, startCaptureServer } from './capture-server.ts';
import { closeOpened, removeTempDirs } from './cleanup.ts';
import type { ServiceProcess } from './process.ts';

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
 * before them, `dsn` for `project`; after each test what it opened closed (`closeAfterTest`); after all of them the server closed, then
 * the temp dirs removed. Vitest runs after-hooks as a stack: the caller's, registered later, run first.
 */
export function withCapture(project: Project = DEFAULT_PROJECT): CaptureUnderTest {
  const under = {} as CaptureUnderTest;
  beforeAll(async () => {
    under.capture = await startCaptureServer();
    under.dsn = under.capture.dsn(project);
  });
  afterEach(closeOpened);
  afterAll(async () => {
    await under.capture?.close();
    removeTempDirs();
  });
  return under;
}

/**
 * The service processes a file's tests spawn (push each one): killed after each test, then the capture server
 * answers `accept` again and forgets what it received.
 */
export function withProcesses(under: CaptureUnderTest): ServiceProcess[] {
  const running: ServiceProcess[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.kill()));
    under.capture.setBehaviour({ kind: 'accept' });
    under.capture.clear();
  });
  return running;
}
