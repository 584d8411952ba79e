// Envelope size sweep: the relay (fast, durable) beside the Fastify peers (header-only, full parse) at each size,
// closed loop (wrk), processes on CPU 0, wrk and the sink on CPU 1. The peers' body limit is 1 MiB, so above it only
// the relay runs. The whole sweep is one loopback client, so the relays' per-client shares (memory, spool) are raised
// to the totals: what is measured is how the work grows, not the fairness policy.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { median } from '@app/test-kit';
import { type Cell, chart, sizeLabel, table } from '@app/test-kit/growth-report';
import { fastifyPeers, PEER_DSN } from '../peers.ts';
import {
  cpuSeconds,
  launch,
  peakRssMib,
  relayEnv,
  relayMain,
  resetPeak,
  stop,
  type WrkCounts,
  waitForHttp,
  wrk,
} from './harness.ts';
import { sizedEnvelope } from './sized-envelope.ts';

const MiB = 1024 * 1024;
/** Most bytes the load keeps in flight at once: 50 connections up to 1 MiB, 6 at 20 MiB (128 MiB either way). */
const IN_FLIGHT_BYTES = 128 * MiB;
const PEER_BODY_LIMIT = MiB;

export interface SizesOptions {
  work: string;
  sinkOrigin: string;
  dsn: string;
  freePort: () => Promise<number>;
  sizes: readonly number[];
  connections: number;
  seconds: number;
  rounds: number;
}

interface Contender {
  name: string;
  url: string;
  pid: number;
  peer: boolean;
}

interface Point extends WrkCounts {
  cpuUsPerEnvelope: number;
  peakRss: number;
}

export async function sizeSweep(o: SizesOptions): Promise<string> {
  const relays = await Promise.all(
    (['fast', 'durable'] as const).map(async (mode) => {
      const port = await o.freePort();
      const env = relayEnv(port, o.dsn, join(o.work, `spool-sizes-${mode}`), {
        SPOOL_MODE: mode,
        MEMORY_PER_CLIENT_BYTES: String(256 * MiB),
        SPOOL_PER_CLIENT_BYTES: String(512 * MiB),
        SPOOL_PER_CLIENT_ENVELOPES: '100000',
      });
      const child = launch('0', [process.execPath, relayMain], env);
      await waitForHttp(`http://127.0.0.1:${port}/healthz`);
      return { name: `relay (${mode})`, url: `http://127.0.0.1:${port}/monitoring`, pid: child.pid as number, child };
    }),
  );
  const specs = fastifyPeers(o.sinkOrigin, [await o.freePort(), await o.freePort()]);
  if (typeof specs === 'string') console.log(specs);
  const peers = await Promise.all(
    (typeof specs === 'string' ? [] : specs).map(async (spec) => {
      const child = launch('0', [process.execPath, spec.script], spec.env);
      const url = `http://127.0.0.1:${spec.env.PORT}${spec.path}`;
      await waitForHttp(url);
      return { name: spec.name, url, pid: child.pid as number, child };
    }),
  );
  const contenders: Contender[] = [
    ...relays.map((r) => ({ ...r, peer: false })),
    ...peers.map((p) => ({ ...p, peer: true })),
  ];

  const points = new Map<string, Point>(); // `${name}@${size}`
  for (const size of o.sizes) {
    const bodies = { relay: join(o.work, `sized-${size}.txt`), peer: join(o.work, `sized-${size}-peer.txt`) };
    writeFileSync(bodies.relay, sizedEnvelope(o.dsn, size));
    writeFileSync(bodies.peer, sizedEnvelope(PEER_DSN, size));
    const connections = Math.max(1, Math.min(o.connections, Math.floor(IN_FLIGHT_BYTES / size)));
    // A round long enough for every connection to finish a few envelopes (a 20 MiB one takes ~1 s on a busy core).
    const seconds = Math.max(o.seconds, Math.ceil(size / (2 * MiB)));
    const running = contenders.filter((c) => !c.peer || size <= PEER_BODY_LIMIT);
    for (const c of running) wrk(c.url, c.peer ? bodies.peer : bodies.relay, connections, 1); // warm-up
    const runs = new Map<string, Point[]>(running.map((c) => [c.name, []]));
    for (let round = 1; round <= o.rounds; round++) {
      for (const c of running) {
        resetPeak(c.pid);
        const cpuBefore = cpuSeconds(c.pid);
        const counts = wrk(c.url, c.peer ? bodies.peer : bodies.relay, connections, seconds);
        const cpu = cpuSeconds(c.pid) - cpuBefore;
        const point = {
          ...counts,
          cpuUsPerEnvelope: (cpu * 1e6) / Math.max(1, counts.okPerSecond * seconds),
          peakRss: peakRssMib(c.pid),
        };
        runs.get(c.name)?.push(point);
        console.log(
          `  ${sizeLabel(size).padStart(8)} × ${connections} conns, round ${round}: ${c.name.padEnd(20)} ${point.okPerSecond.toFixed(0).padStart(6)}/s  p99 ${point.p99.toFixed(1)} ms  CPU ${point.cpuUsPerEnvelope.toFixed(0)} µs/env  peak RSS ${point.peakRss.toFixed(0)} MiB  errors ${(point.errorShare * 100).toFixed(1)} %`,
        );
      }
    }
    for (const [name, list] of runs) {
      const pick = (key: keyof Point) => median(list.map((p) => p[key]));
      points.set(`${name}@${size}`, {
        okPerSecond: pick('okPerSecond'),
        p50: pick('p50'),
        p99: pick('p99'),
        errorShare: pick('errorShare'),
        cpuUsPerEnvelope: pick('cpuUsPerEnvelope'),
        peakRss: Math.max(...list.map((p) => p.peakRss)),
      });
    }
  }
  await Promise.all([...relays, ...peers].map(({ child }) => stop(child))); // the next sweep has the CPU alone
  return sizeReport(o, contenders, points);
}

function sizeReport(o: SizesOptions, contenders: readonly Contender[], points: ReadonlyMap<string, Point>): string {
  const at = (name: string, size: number) => points.get(`${name}@${size}`);
  const rows: Cell[][] = [];
  for (const size of o.sizes) {
    const peerFull = at('fastify peer, full', size)?.okPerSecond ?? Number.NaN;
    const peerHeader = at('fastify peer', size)?.okPerSecond ?? Number.NaN;
    for (const c of contenders) {
      const p = at(c.name, size);
      if (!p) continue;
      rows.push([
        sizeLabel(size),
        c.name,
        p.okPerSecond,
        (p.okPerSecond * size) / MiB,
        p.cpuUsPerEnvelope,
        (p.cpuUsPerEnvelope * MiB) / size / 1000,
        p.p99,
        p.peakRss,
        `${(p.errorShare * 100).toFixed(1)} %`,
        c.peer ? '' : p.okPerSecond / peerFull,
        c.peer ? '' : p.okPerSecond / peerHeader,
      ]);
    }
  }
  const labels = o.sizes.map(sizeLabel);
  const series = (value: (p: Point, size: number) => number) =>
    contenders.map((c) => ({
      name: c.name,
      values: o.sizes.map((size) => {
        const p = at(c.name, size);
        return p ? value(p, size) : Number.NaN;
      }),
    }));
  return [
    `envelope size (medians of ${o.rounds} × ${o.seconds} s, 10 s at 20 MiB; up to ${o.connections} connections, fewer above 2.5 MiB so at most 128 MiB is in flight)`,
    '',
    table(
      [
        'size',
        'contender',
        'env/s',
        'MiB/s',
        'CPU µs/env',
        'CPU ms/MiB',
        'p99 ms',
        'peak RSS MiB',
        'errors',
        '× peer full',
        '× peer header',
      ],
      rows,
    ),
    '',
    chart(
      'MiB/s by envelope size',
      'envelope size',
      labels,
      'MiB/s',
      series((p, size) => (p.okPerSecond * size) / MiB),
    ),
    chart(
      'peak RSS (MiB) by envelope size',
      'envelope size',
      labels,
      'MiB',
      series((p) => p.peakRss),
    ),
  ].join('\n');
}
