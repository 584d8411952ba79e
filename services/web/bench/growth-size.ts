// The list-size sweep of the growth bench: `/catalog?limit=N` for N = 10, 50, 500 from our service (Sentry on, 10 %
// traced, request logs at info, as deployed; the 500-item build of growth-vite.config.ts) beside the React Router
// peer's `/items?limit=N` (growth-peer.ts), each pinned to core 0, wrk (10 connections) on core 1, interleaved rounds.
// The deployed build at 50 items runs too: the growth build must cost what it does.

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, median } from '@app/test-kit';
import { chart, num, table, times } from '@app/test-kit/growth-report';
import { prepareGrowthPeer } from './growth-peer.ts';
import { startSsrRrPeer } from './peer-ssr-rr.ts';
import { type Result, wrk } from './wrk.ts';

export const SIZES = [10, 50, 500] as const;
const OURS = 'ours';
const PEER = 'ssr-rr';
const DEPLOYED = 'ours, deployed build';

interface Server {
  url: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

async function startOurs(root: string, dist: string, dsn: string): Promise<Server> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'taskset',
    ['-c', '0', process.execPath, '--import', `./${dist}/instrument.js`, `./${dist}/main.js`],
    {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'info',
        SENTRY_DSN: dsn,
        SENTRY_TRACES_SAMPLE_RATE: '0.1',
        // Shedding samples as deployed but never sheds: this sweep saturates the server on purpose.
        SHED_EVENT_LOOP_DELAY_MS: '60000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.resume();
  child.stderr?.resume();
  const url = `http://127.0.0.1:${port}`;
  for (
    let waited = 0;
    !(await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    ));
    waited += 100
  ) {
    if (waited > 20_000 || child.exitCode !== null) throw new Error(`${dist}/main.js did not start`);
    await sleep(100);
  }
  return {
    url,
    pid: child.pid,
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

interface Target {
  name: string;
  size: number;
  url: string;
  pid: number | undefined;
  bytes: number;
}

// How a document's list items are told apart: our item links (distinct), the peer's item headings.
const PEER_ITEM = /<h2>/g;
const OUR_ITEM = /href="\/catalog\/[a-z0-9-]+"/g;

/** A target, checked to render `size` items: a cap or a short list would otherwise be measured as the longer list. */
async function target(name: string, size: number, server: Server, path: string): Promise<Target> {
  const response = await fetch(`${server.url}${path}`);
  const html = await response.text();
  if (!response.ok) throw new Error(`${name} ${path}: ${response.status}`);
  const marks = html.match(name === PEER ? PEER_ITEM : OUR_ITEM) ?? [];
  const items = name === PEER ? marks.length : new Set(marks).size;
  if (items !== size) throw new Error(`${name} ${path}: ${items} items in the document, not ${size}`);
  return { name, size, url: `${server.url}${path}`, pid: server.pid, bytes: Buffer.byteLength(html) };
}

export async function sizeSweep(root: string, dsn: string, rounds: number, seconds: number): Promise<string> {
  const peerDir = prepareGrowthPeer();
  const ours = await startOurs(root, 'dist/growth', dsn);
  const deployed = await startOurs(root, 'dist/server', dsn);
  const peer = peerDir ? await startSsrRrPeer(peerDir, ['-c', '0']) : undefined;
  const results = new Map<Target, Result[]>();
  try {
    const targets: Target[] = [];
    for (const size of SIZES) {
      targets.push(await target(OURS, size, ours, `/catalog?limit=${size}`));
      if (size === 50) targets.push(await target(DEPLOYED, size, deployed, `/catalog?limit=${size}`));
      if (peer) targets.push(await target(PEER, size, peer, `/items?limit=${size}`));
    }
    for (const t of targets) await wrk({ name: `${t.name} ${t.size}`, url: t.url, pid: t.pid }); // warm-up
    for (let round = 1; round <= rounds; round++) {
      for (const t of targets) {
        const result = await wrk({ name: `${t.name} ${t.size}`, url: t.url, pid: t.pid }, seconds);
        results.set(t, [...(results.get(t) ?? []), result]);
        const line = `${num(result.rps).padStart(6)} docs/s  CPU ${result.cpuMs.toFixed(3)} ms/doc`;
        console.log(`size round ${round} ${`${t.name} ${t.size}`.padEnd(28)} ${line}`);
      }
    }
  } finally {
    for (const server of [ours, deployed, ...(peer ? [peer] : [])]) await server.stop();
  }
  return sizeReport(results, rounds, seconds);
}

function sizeReport(results: Map<Target, Result[]>, rounds: number, seconds: number): string {
  const find = (name: string, size: number) => [...results].find(([t]) => t.name === name && t.size === size);
  const figures = (name: string, size: number) => {
    const [t, runs = []] = find(name, size) ?? [];
    return {
      rps: median(runs.map((r) => r.rps)),
      cpuMs: median(runs.map((r) => r.cpuMs)),
      bytes: t?.bytes ?? Number.NaN,
      runs,
    };
  };
  // Per round, then the median: the two of a pair ran seconds apart, under the same neighbours.
  const perCpuRatio = (size: number) => {
    const a = figures(OURS, size).runs;
    const b = figures(PEER, size).runs;
    const ratios = a.map((r, i) => (b[i]?.cpuMs ?? Number.NaN) / r.cpuMs);
    return `**${median(ratios).toFixed(2)}** (${ratios.map((r) => r.toFixed(2)).join(', ')})`;
  };
  const [first] = SIZES;
  const rows = SIZES.map((size) => {
    const o = figures(OURS, size);
    const p = figures(PEER, size);
    const o0 = figures(OURS, first);
    const p0 = figures(PEER, first);
    return [
      `${size} (${times(size, first)})`,
      num(o.rps),
      `${o.cpuMs.toFixed(3)} (${times(o.cpuMs, o0.cpuMs)})`,
      `${num(o.bytes / 1024, 1)} (${times(o.bytes, o0.bytes)})`,
      num(p.rps),
      `${p.cpuMs.toFixed(3)} (${times(p.cpuMs, p0.cpuMs)})`,
      `${num(p.bytes / 1024, 1)} (${times(p.bytes, p0.bytes)})`,
      perCpuRatio(size),
    ];
  });
  const deployed = figures(DEPLOYED, 50);
  const growth = figures(OURS, 50);
  // What one more item costs: the slope between the two longest lists, where the fixed cost per document cancels.
  const [, mid = 50, last = 500] = SIZES;
  const perItemUs = (name: string) => ((figures(name, last).cpuMs - figures(name, mid).cpuMs) * 1000) / (last - mid);
  const perItemBytes = (name: string) => (figures(name, last).bytes - figures(name, mid).bytes) / (last - mid);
  return [
    `list size sweep: medians of ${rounds} interleaved rounds × ${seconds} s, 10 connections, Sentry on for ours (10 % traced)`,
    '',
    table(
      [
        'items (× work)',
        'ours docs/s',
        'ours CPU ms/doc (× first)',
        'ours KiB/doc',
        'ssr-rr docs/s',
        'ssr-rr CPU ms/doc',
        'ssr-rr KiB/doc',
        'ours ÷ ssr-rr per CPU-s (rounds)',
      ],
      rows,
    ),
    '',
    `per item from ${mid} to ${last}: ours ${perItemUs(OURS).toFixed(1)} µs CPU and ${num(perItemBytes(OURS))} bytes, ` +
      `ssr-rr ${perItemUs(PEER).toFixed(1)} µs and ${num(perItemBytes(PEER))} bytes`,
    `check: the deployed build at 50 items ${deployed.cpuMs.toFixed(3)} ms/doc, ${num(deployed.bytes)} bytes; ` +
      `the growth build ${growth.cpuMs.toFixed(3)} ms/doc, ${num(growth.bytes)} bytes`,
    '',
    chart(
      'CPU per document by list size',
      'items',
      [...SIZES],
      'CPU ms per document',
      [OURS, PEER].map((name) => ({ name, values: SIZES.map((size) => figures(name, size).cpuMs) })),
    ),
  ].join('\n');
}
