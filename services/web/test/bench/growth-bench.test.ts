// The growth bench's own parts (bench/growth-*.ts), real inputs: the service's catalog and catalog.ts, the shared
// React Router peer's items and route when present, and wrk's own output format. A bench that read wrk wrongly or
// measured the old page-size cap would print confident wrong figures; these fail first.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { listenQueue } from '../../bench/growth-accept-queue.ts';
import {
  GROWTH_MAX_ITEMS,
  longerCatalog,
  longerPeerItems,
  peerRouteWithLimit,
  raisePageSizeCap,
} from '../../bench/growth-lists.ts';
import { parseWrk } from '../../bench/growth-load.ts';
import { readPodLimits, type Scrape, serverP99Ms } from '../../bench/growth-pod.ts';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
// The shared peer, where bench/peer-ssr-rr.ts looks for it; its two tests run only where it is.
const PEER = `${process.env.SSR_RR_PEER_DIR ?? '/work/shared/peers/ssr-rr'}/app/`;

describe('the longer lists', () => {
  it('repeats the catalog out to 500 items with unique ids, slugs and names, the first ones unchanged', () => {
    const original = JSON.parse(read('../../src/app/catalog/catalog.json'));
    const longer = JSON.parse(longerCatalog(read('../../src/app/catalog/catalog.json')));
    expect(longer.items).toHaveLength(GROWTH_MAX_ITEMS);
    expect(longer.items.slice(0, original.items.length)).toEqual(original.items);
    for (const key of ['id', 'slug', 'name']) {
      expect(new Set(longer.items.map((item: Record<string, unknown>) => item[key])).size).toBe(GROWTH_MAX_ITEMS);
    }
    expect(longer.moved).toEqual(original.moved);
  });

  it('raises the page-size cap in catalog.ts, and refuses a catalog.ts whose cap line moved', () => {
    const raised = raisePageSizeCap(read('../../src/app/catalog/catalog.ts'));
    expect(raised).toContain(`export const MAX_PAGE_SIZE = ${GROWTH_MAX_ITEMS};`);
    expect(() => raisePageSizeCap('export const PAGE_SIZE_MAX = 50;')).toThrow(/MAX_PAGE_SIZE/);
  });

  it.runIf(existsSync(`${PEER}items.json`))("numbers the peer's items on as its own are numbered", () => {
    const items = JSON.parse(longerPeerItems(readFileSync(`${PEER}items.json`, 'utf8')));
    expect(items).toHaveLength(GROWTH_MAX_ITEMS);
    expect(new Set(items.map((item: { id: string }) => item.id)).size).toBe(GROWTH_MAX_ITEMS);
    expect(items[499].id).toBe('item-500');
    expect(items[499].title).toMatch(/#500$/);
    expect(items[499].description).toContain(`${items[499].title} is a sample`);
    expect(items[499].description).toContain('(entry 500 of 500)');
  });

  it.runIf(existsSync(`${PEER}routes/items.jsx`))(
    "gives the peer's loader a ?limit=, and refuses a route it does not know",
    () => {
      const route = peerRouteWithLimit(readFileSync(`${PEER}routes/items.jsx`, 'utf8'));
      expect(route).toContain("searchParams.get('limit')");
      expect(route).not.toMatch(/return \{ items \};/);
      expect(() => peerRouteWithLimit('export async function loader() { return load(); }')).toThrow(/loader/);
    },
  );
});

const WRK_SHED = `Running 3s test @ http://127.0.0.1:1234/catalog?limit=50
  1 threads and 1000 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.80s   300.00ms   2.51s    70.00%
  Latency Distribution
     50%    1.82s
     75%    2.10s
     90%    2.30s
     99%    2.49s
  138 requests in 3.01s, 2.90MB read
  Socket errors: connect 0, read 0, write 0, timeout 12
  Non-2xx or 3xx responses: 38
Requests/sec:     45.85
`;
const WRK_QUIET = `    Latency   900.00us  500.00us  15.00ms   90.00%
  Latency Distribution
     50%  812.00us
     75%    1.10ms
     90%    1.50ms
     99%   12.34ms
  5000 requests in 5.00s, 100.00MB read
Requests/sec:   1000.00
`;

describe("reading wrk's output", () => {
  it.each([
    [
      'refusals and timeouts',
      WRK_SHED,
      { requests: 138, refused: 38, p50Ms: 1820, p99Ms: 2490, maxMs: 2510, timeouts: 12 },
    ],
    [
      'all answered, µs and ms',
      WRK_QUIET,
      { requests: 5000, refused: 0, p50Ms: 0.812, p99Ms: 12.34, maxMs: 15, timeouts: 0 },
    ],
  ])('%s', (_name, out, expected) => {
    const parsed = parseWrk(out);
    expect(parsed).toMatchObject(expected);
    expect(parsed.okPerSecond).toBeCloseTo((expected.requests - expected.refused) / (out === WRK_SHED ? 3.01 : 5), 6);
  });
});

it("reads the web pod's limits and ConfigMap from deploy/k8s", () => {
  const limits = readPodLimits();
  expect(limits.memoryBytes).toBe(512 * 1024 * 1024);
  expect(limits.cpus).toBe(1);
  expect(limits.env.SENTRY_TRACES_SAMPLE_RATE).toBe('0.1');
});

describe("the in-process p99 from the service's request histogram", () => {
  const scrape = (counts: [number, number][]): Scrape => ({ shed: {}, okDurations: new Map(counts) });
  const before = scrape([
    [0.1, 10],
    [0.25, 10],
    [Number.POSITIVE_INFINITY, 10],
  ]);
  it.each([
    [
      'every answer under 100 ms',
      [
        [0.1, 1010],
        [0.25, 1010],
        [Number.POSITIVE_INFINITY, 1010],
      ],
      100,
    ],
    [
      '2 % between 100 and 250 ms',
      [
        [0.1, 990],
        [0.25, 1010],
        [Number.POSITIVE_INFINITY, 1010],
      ],
      250,
    ],
    [
      '2 % past the last bucket',
      [
        [0.1, 990],
        [0.25, 990],
        [Number.POSITIVE_INFINITY, 1010],
      ],
      Infinity,
    ],
    [
      'no answer between the scrapes',
      [
        [0.1, 10],
        [0.25, 10],
        [Number.POSITIVE_INFINITY, 10],
      ],
      Number.NaN,
    ],
  ] as [string, [number, number][], number][])('%s', (_name, after, p99) => {
    expect(serverP99Ms(before, scrape(after))).toBe(p99);
  });
});

describe("reading ss's listening sockets", () => {
  it('sums the connections queued for accept over every socket listening on the port', () => {
    const out = [
      'LISTEN 84     511        127.0.0.1:41881      0.0.0.0:*',
      'LISTEN 3      511        127.0.0.1:41881      0.0.0.0:*',
      'LISTEN 0      511        127.0.0.1:41881      0.0.0.0:*',
      '',
    ].join('\n');
    expect(listenQueue(out)).toBe(87);
    expect(listenQueue('')).toBe(0);
  });
});
