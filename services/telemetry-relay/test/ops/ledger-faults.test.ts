// The loss ledger of a real relay process under faults: after each, /metrics must balance exactly per project and
// category, accepted + pending_at_start = forwarded + dropped + pending, and what it counts forwarded must be what
// the capture server (upstream) recorded. Faults: an outage and its end, a restart with a spooled backlog (kill -9 in
// durable mode, SIGTERM in fast), upstream 429s with Retry-After, upstream 4xx refusals, and a backlog past
// SPOOL_MAX_AGE_SECONDS; in both spool modes.
import { fileURLToPath } from 'node:url';
import {
  attachmentItem,
  type CaptureServer,
  envelope,
  errorEvent,
  eventItem,
  eventually,
  removeTempDirs,
  type ServiceProcess,
  spawnService,
  startCaptureServer,
  tempDir,
} from '@app/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LedgerScrape, readLedger } from './ledger-scrape.ts';

const entry = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
let capture: CaptureServer;
let dsn: string;
let spoolDir: string;
let mode: 'durable' | 'fast';
let relay: ServiceProcess;
/** Every process started, so a test that times out mid-restart leaves none running. */
const started: Promise<ServiceProcess>[] = [];
/** Forwarded items of processes that ended, by category: the capture server's counts span every process. */
const forwardedBefore = new Map<string, number>();

const start = (env: Record<string, string> = {}) => {
  const service = spawnService(entry, {
    env: {
      ALLOWED_DSNS: dsn,
      TUNNEL_PATH: '/monitoring',
      SPOOL_DIR: spoolDir,
      SPOOL_MODE: mode,
      RETRY_BASE_MS: '50',
      RETRY_MAX_MS: '300',
      CLIENT_REPORT_INTERVAL_MS: '600000',
      ...env,
    },
    startTimeoutMs: 30_000, // a loaded 2-core CI machine
  });
  started.push(service);
  return service;
};

beforeAll(async () => {
  capture = await startCaptureServer();
  dsn = capture.dsn({ projectId: '7', publicKey: 'pk' });
});
afterAll(async () => {
  await Promise.all(started.map((service) => service.then((s) => s.kill()).catch(() => undefined)));
  await capture?.close();
  removeTempDirs();
}, 40_000);

/** The shapes sent: error + attachment, a transaction, an error the chunk-load-error inbound filter drops. */
const SHAPES = {
  errorWithAttachment: () => [eventItem(), attachmentItem(Buffer.from('log lines'))],
  transaction: () => [
    {
      header: { type: 'transaction' },
      payload: JSON.stringify({ type: 'transaction', transaction: '/items', start_timestamp: 1, timestamp: 2 }),
    },
  ],
  chunkLoadError: () => [
    eventItem({
      ...errorEvent(),
      exception: { values: [{ type: 'ChunkLoadError', value: 'Loading chunk 3 failed.' }] },
    }),
  ],
};

/** Posts `count` envelopes of each shape; every one must be answered 200 (the ledger counts only those). */
async function send(count: number, shapes: Array<keyof typeof SHAPES> = ['errorWithAttachment', 'transaction']) {
  for (let n = 0; n < count; n++) {
    for (const shape of shapes) {
      const response = await fetch(`${relay.url}/monitoring`, {
        method: 'POST',
        body: envelope({ event_id: crypto.randomUUID().replaceAll('-', ''), dsn }, SHAPES[shape]()),
      });
      expect(`${shape} ${response.status} ${await response.text()}`).toMatch(new RegExp(`^${shape} 200 `));
    }
  }
}

const scrape = async (): Promise<LedgerScrape> => readLedger(await (await fetch(`${relay.url}/metrics`)).text());

/** Asserts the identity for every project and category, and returns the scrape. */
async function balanced(): Promise<LedgerScrape> {
  const ledger = await scrape();
  expect(ledger.keys().length).toBeGreaterThan(0);
  for (const key of ledger.keys()) {
    const { accepted, atStart, forwarded, dropped, pending } = ledger.of(key);
    expect({ key, in: accepted + atStart }).toEqual({ key, in: forwarded + dropped + pending });
  }
  return ledger;
}

/** Waits until nothing is pending, then checks the identity and that upstream got exactly what was forwarded. */
async function settled(): Promise<LedgerScrape> {
  await eventually(async () => (await scrape()).total('pending') === 0, 15_000);
  const ledger = await balanced();
  const captured = new Map<string, number>();
  for (const { items } of capture.envelopes) {
    for (const item of items) {
      const category = categoryOfType(item.header.type as string);
      if (category !== 'internal') captured.set(category, (captured.get(category) ?? 0) + 1); // the relay's reports
    }
  }
  for (const [category, n] of captured) {
    expect({
      category,
      forwarded: ledger.sum('forwarded', { category }) + (forwardedBefore.get(category) ?? 0),
    }).toEqual({ category, forwarded: n });
  }
  return ledger;
}
const categoryOfType = (type: string) =>
  ({ event: 'error', attachment: 'attachment', transaction: 'transaction' })[type] ?? 'internal';

async function restart(env?: Record<string, string>) {
  const last = await scrape();
  for (const category of ['error', 'attachment', 'transaction']) {
    forwardedBefore.set(category, (forwardedBefore.get(category) ?? 0) + last.sum('forwarded', { category }));
  }
  // Fast mode holds accepted envelopes in memory: kill -9 would lose them by its promise; SIGTERM spools them.
  relay.child.kill(mode === 'durable' ? 'SIGKILL' : 'SIGTERM');
  await relay.exited;
  relay = await start(env);
  return last;
}

describe.each(['durable', 'fast'] as const)(
  'the loss ledger of a relay process (SPOOL_MODE=%s)',
  (spoolMode) => {
    beforeAll(async () => {
      mode = spoolMode;
      spoolDir = tempDir('ledger-faults-');
      capture.setBehaviour({ kind: 'accept' });
      capture.clear();
      forwardedBefore.clear();
      relay = await start();
    }, 40_000);
    afterAll(() => relay.kill());

    it('balances on healthy traffic, filtered items dropped by their filter', async () => {
      await send(5, ['errorWithAttachment', 'transaction', 'chunkLoadError']);
      const ledger = await settled();
      expect(ledger.sum('accepted', { project: '7' })).toBe(20);
      expect(ledger.sum('dropped', { reason: 'filter:chunk-load-error', category: 'error' })).toBe(5);
      expect(ledger.sum('forwarded', {})).toBe(15);
    });

    it('balances during an outage (items pending in the spool) and after it (all forwarded)', async () => {
      capture.setBehaviour({ kind: 'fail', status: 503 });
      await send(4);
      await eventually(async () => (await scrape()).total('pending') === 12, 5_000);
      await balanced();
      capture.setBehaviour({ kind: 'accept' });
      const ledger = await settled();
      expect(ledger.sum('forwarded', {})).toBe(27);
    });

    it('balances across a restart with a spooled backlog (durable: kill -9): the backlog is the next pending at start', async () => {
      capture.setBehaviour({ kind: 'drop' });
      await send(3);
      await eventually(async () => (await scrape()).total('pending') === 9, 5_000);
      const before = await restart();
      const after = await balanced();
      for (const key of before.keys()) expect(after.of(key).atStart).toBe(before.of(key).pending);
      expect(after.total('atStart')).toBe(9);
      capture.setBehaviour({ kind: 'accept' });
      await send(1);
      const ledger = await settled();
      expect(ledger.sum('forwarded', {})).toBe(12);
    });

    it('balances through upstream 429s: what upstream limited and what the relay then held back', async () => {
      capture.setBehaviour({ kind: 'rate-limit', retryAfterSeconds: 30, limits: '30:error:key' });
      await send(1, ['errorWithAttachment']);
      await eventually(async () => (await scrape()).total('pending') === 0, 5_000);
      capture.setBehaviour({ kind: 'accept' });
      // The limit learnt covers errors only: the error is dropped here, its attachment and the transaction go.
      await send(2, ['errorWithAttachment', 'transaction']);
      const ledger = await settled();
      expect(ledger.sum('dropped', { reason: 'upstream_ratelimited', category: 'error' })).toBe(3);
      expect(ledger.sum('dropped', { reason: 'upstream_ratelimited', category: 'attachment' })).toBe(1);
    });

    it('balances through upstream 4xx refusals', async () => {
      await restart(); // forgets the rate limit
      capture.setBehaviour({ kind: 'fail', status: 400 });
      await send(2);
      const ledger = await settled();
      expect(ledger.sum('dropped', { reason: 'upstream_refused' })).toBe(6);
      capture.setBehaviour({ kind: 'accept' });
    });

    it('balances when a backlog outlives SPOOL_MAX_AGE_SECONDS: expired at the restart and while replaying', async () => {
      capture.setBehaviour({ kind: 'fail', status: 503 });
      await send(2);
      await eventually(async () => (await scrape()).total('pending') === 6, 5_000);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await restart({ SPOOL_MAX_AGE_SECONDS: '1' });
      let ledger = await balanced();
      expect([ledger.total('atStart'), ledger.sum('dropped', { reason: 'expired' })]).toEqual([6, 6]);
      await send(1);
      await eventually(async () => (await scrape()).total('pending') === 0, 10_000);
      ledger = await balanced();
      expect(ledger.sum('dropped', { reason: 'expired' })).toBe(9);
      capture.setBehaviour({ kind: 'accept' });
    });

    it('balances when the spike shield and a local quota drop items (policy drops, named)', async () => {
      await restart({
        SPIKE_SHIELD_THRESHOLD: '2',
        SPIKE_SHIELD_KEEP_ONE_IN: '1000',
        // Attachments count in bytes, as Sentry's: room for one 9-byte attachment ('log lines').
        QUOTAS: '[{"categories":["attachment"],"limit":9,"window":3600}]',
      });
      const before = await scrape();
      await send(5);
      const ledger = await settled();
      const dropped = (reason: string, category: string) =>
        ledger.sum('dropped', { reason, category }) - before.sum('dropped', { reason, category });
      // Past two of one fingerprint, the next three errors go with their attachments; of the two attachments
      // left, the quota keeps one.
      expect([dropped('spike_shield', 'error'), dropped('spike_shield', 'attachment')]).toEqual([3, 3]);
      expect(dropped('quota', 'attachment')).toBe(1);
    });
  },
  60_000,
); // each test restarts a process or two: seconds each on a loaded machine
