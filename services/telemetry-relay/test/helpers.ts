// Shared test setup for the relay: temp dirs and closables cleaned up, sample envelopes, a relay on loopback.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Config, loadConfig } from '../src/config.ts';
import type { Spool, SpoolRecord } from '../src/spool/spool.ts';

export const EVENT_ID = '9ec79c33ec9942ab8353589fcb2e04dc';

const tempDirs: string[] = [];

/** A fresh directory under the OS temp dir, removed by `removeTempDirs()` (call it in afterAll). */
export function tempDir(prefix = 'relay-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

const opened: Array<{ close(): unknown }> = [];

/** Closed after the test whether it passed or not, by `closeOpened()` (call it in afterEach); closing twice is fine. */
export function closeAfterTest<T extends { close(): unknown }>(thing: T): T {
  opened.push(thing);
  return thing;
}

export async function closeOpened(): Promise<void> {
  for (const thing of opened.splice(0).reverse()) await thing.close();
}

export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A configuration as the environment would give it, with a fresh spool directory and quiet logs. */
export function testConfig(env: Record<string, string> = {}): Config {
  const spoolDir = tempDir();
  return loadConfig({
    LOG_LEVEL: 'silent',
    SPOOL_DIR: spoolDir,
    TUNNEL_PATH: '/monitoring',
    PORT: '0',
    HOST: '127.0.0.1',
    ...env,
  });
}

/** A browser-like error event (~5 KB with a 20-frame stack trace), as @sentry/browser serializes it. */
export function errorEvent(value = 'Cannot read properties of undefined (reading "id")', type = 'TypeError') {
  const frames = Array.from({ length: 20 }, (_, i) => ({
    filename: `https://shop.example.com/assets/chunk-${(i * 7919).toString(16)}.js`,
    function: `handler${i}`,
    in_app: true,
    lineno: 100 + i,
    colno: 17 + i,
  }));
  return {
    exception: { values: [{ type, value, stacktrace: { frames }, mechanism: { type: 'onerror', handled: false } }] },
    level: 'error',
    event_id: EVENT_ID,
    platform: 'javascript',
    request: { url: 'https://shop.example.com/items/42', headers: { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64)' } },
    timestamp: 1_795_000_000.123,
    environment: 'production',
    release: 'shop@1.4.2',
    sdk: { name: 'sentry.javascript.react', version: '11.12.0' },
    breadcrumbs: Array.from({ length: 10 }, (_, i) => ({
      category: 'navigation',
      timestamp: 1_795_000_000 - i,
      data: { from: `/items/${i}`, to: `/items/${i + 1}` },
    })),
    tags: { route: '/items/:id' },
  };
}

export interface ItemSpec {
  header: Record<string, unknown>;
  payload: string | Buffer;
}

/** Serializes an envelope the way the JS SDK does: JSON items without length, binary ones with. */
export function envelope(header: Record<string, unknown>, items: ItemSpec[]): Buffer {
  const parts: Buffer[] = [Buffer.from(JSON.stringify(header))];
  for (const item of items) {
    parts.push(Buffer.from(`\n${JSON.stringify(item.header)}\n`));
    parts.push(typeof item.payload === 'string' ? Buffer.from(item.payload) : item.payload);
  }
  return Buffer.concat(parts);
}

export const eventItem = (event: unknown = errorEvent()): ItemSpec => ({
  header: { type: 'event' },
  payload: JSON.stringify(event),
});

export const attachmentItem = (payload: Buffer, filename = 'blob.bin'): ItemSpec => ({
  header: { type: 'attachment', length: payload.length, filename, content_type: 'application/octet-stream' },
  payload,
});

export interface RunningRelay {
  url: string;
  tunnel: string;
  app: import('fastify').FastifyInstance;
  readiness: import('@app/service-kit').Readiness;
  config: Config;
  close(): Promise<void>;
}

/** The relay in this process on a loopback port (buildApp + listen), for tests that need real HTTP. */
export async function startRelay(
  env: Record<string, string>,
  build: import('../src/app.ts').BuildOptions = {},
): Promise<RunningRelay> {
  const { buildApp } = await import('../src/app.ts');
  const config = testConfig(env);
  const { app, readiness } = await buildApp(config, build);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  return { url, tunnel: `${url}${config.tunnelPaths[0]}`, app, readiness, config, close: () => app.close() };
}

export async function post(
  url: string,
  body: Buffer | string,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'text/plain;charset=UTF-8', ...headers },
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { text };
  }
  return { status: response.status, json, headers: response.headers };
}

/**
 * POSTs `body` with node:http in one write and resolves with the status: what the client does stays out of an
 * event-loop measurement in this thread (fetch passes a body through a web stream, a block of its own).
 */
export function postWhole(url: string, body: Buffer, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-length': String(body.length), ...headers } });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Polls `check` until it returns true or `timeoutMs` passes. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Blocks are timed as wall time less the time this thread waited for a CPU (its run-queue wait in
// /proc/thread-self/schedstat), so other processes' load on the machine does not count as a block; where that file
// cannot be read (not Linux) it is plain wall time.
const SCHEDSTAT = '/proc/thread-self/schedstat';
const canReadSchedstat = existsSync(SCHEDSTAT);
const waitedForCpuMs = () => (canReadSchedstat ? Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[1]) / 1e6 : 0);
const SAMPLE_MS = 1;

/** The time and the wait so far, read with no wait between them (read again when the thread lost its CPU meanwhile). */
function clock(): { at: number; waited: number } {
  for (;;) {
    const waited = waitedForCpuMs();
    const at = performance.now();
    if (waitedForCpuMs() === waited) return { at, waited };
  }
}

/** Runs `work` while watching this thread's event loop; returns its result and the longest block seen, in ms. */
export async function watchEventLoop<T>(work: () => Promise<T>): Promise<{ result: T; maxBlockMs: number }> {
  let maxBlockMs = 0;
  let last = clock();
  const sampler = setInterval(() => {
    const now = clock();
    maxBlockMs = Math.max(maxBlockMs, now.at - last.at - SAMPLE_MS - (now.waited - last.waited));
    last = now;
  }, SAMPLE_MS);
  try {
    const result = await work();
    return { result, maxBlockMs };
  } finally {
    clearInterval(sampler);
  }
}

/** How long `work` holds this thread, timed as `watchEventLoop` times a block: the baseline a block is judged by. */
export function timeBlock(work: () => void): number {
  const start = clock();
  work();
  const end = clock();
  return end.at - start.at - (end.waited - start.waited);
}

/** Up to `maxRows` due rows, leased without screening (what replay would lease with memory to spare). */
export function leaseDue(spool: Spool, now: number, maxRows: number): SpoolRecord[] {
  return spool.lease({ now, maxRows, maxBytes: Number.POSITIVE_INFINITY }).rows;
}

/** A leased row's whole body, from its row or its file (rejects as `openBody` does: lost, not ours, a link). */
export async function readSpooledBody(spool: Spool, row: SpoolRecord | undefined): Promise<Buffer> {
  if (!row) throw new Error('no row was leased');
  if (row.body !== undefined) return row.body;
  const { handle } = await spool.openBody(row, 0);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
