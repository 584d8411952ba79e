// Backlog drain: the durable relay's upstream goes down (the sink is stopped), a backlog is posted and spooled, the
// sink comes back, and live traffic at half the relay's measured capacity (open loop, bench/fixed-rate.ts) flows
// while the spool drains. Target (issue 26): the backlog drains at ≥ 1× the live rate, live p99 ≤ 2× its quiet value.
// The relay's retry backoff is capped at 2 s here (RETRY_MAX_MS): what is measured is the drain, not how long the
// relay takes to notice upstream is back (reported apart, as the delay to the first drained envelope).
import { type ChildProcess, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Cell, chart, table } from '@app/test-kit/growth-report';
import { Pool } from 'undici';
import { errorEnvelope, largeEnvelope } from '../envelopes.ts';
import {
  benchDir,
  gauge,
  launch,
  peakRssMib,
  relayEnv,
  resetPeak,
  sleep,
  stop,
  tool,
  waitForHttp,
  wrk,
} from './harness.ts';

const GiB = 1024 * 1024 * 1024;
const POLL_MS = 250;

export interface BacklogOptions {
  work: string;
  freePort: () => Promise<number>;
  /** Small (5 KB) envelopes in the first backlog; 10 MiB envelopes in the second (0 skips either). */
  small: number;
  large: number;
  /** How long the live load runs after upstream is back (the drain must end within it). */
  drainSeconds: number;
  seconds: number;
  /** The relay's src/main.ts: this checkout's, or another's for an A/B (GROWTH_RELAY_MAIN). */
  relayMain: string;
  /** Live envelopes/s; undefined: half the capacity just measured. Fixed, two runs on a busy machine compare. */
  liveRate: number | undefined;
}

interface Drain {
  name: string;
  count: number;
  bytes: number;
  fillSeconds: number;
  /** From upstream back to the first envelope drained (the relay's probe finding it back). */
  noticeSeconds: number;
  /** From upstream back until the spool holds no more than under live load alone; NaN when it did not. */
  drainSeconds: number;
  liveP99: number;
  liveRate: number;
  peakRss: number;
  /** The longest the relay's event loop was blocked while the backlog drained, ms (bench/loop-probe.ts). */
  longestBlock: number;
  /** [seconds since upstream came back, share of the backlog's bytes still spooled]. */
  curve: Array<[number, number]>;
}

/** Posts `count` copies of `body`, `concurrency` at a time; returns how many were not answered 200. */
async function fill(url: string, body: Buffer, count: number, concurrency: number): Promise<number> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: concurrency });
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      try {
        const response = await pool.request({ method: 'POST', path: target.pathname, body });
        await response.body.dump();
        if (response.statusCode !== 200) failed++;
      } catch {
        failed++; // a reset on a loaded machine: counted, not the end of the run
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await pool.close();
  return failed;
}

/** The p99 of the live requests scheduled between `from` and `to` (epoch ms), from fixed-rate's LATENCY_FILE. */
function p99Between(file: string, from: number, to: number): number {
  const latencies = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.split(' ').map(Number))
    .filter(([at, ms]) => at !== undefined && at >= from && at <= to && ms !== undefined)
    .map(([, ms]) => ms as number)
    .sort((a, b) => a - b);
  return latencies[Math.floor(latencies.length * 0.99)] ?? Number.NaN;
}

/** The longest event-loop block (over 5 ms) that ended between `from` and `to`, from bench/loop-probe.ts's file. */
function longestBlock(file: string, from: number, to: number): number {
  const blocks = readFileSync(file, { encoding: 'utf8', flag: 'a+' })
    .split('\n')
    .map((line) => line.split(' ').map(Number))
    .filter(([at, ms]) => at !== undefined && at >= from && at <= to && ms !== undefined)
    .map(([, ms]) => ms as number);
  return Math.max(0, ...blocks);
}

/** fixed-rate.ts on CPU 1 for `seconds`; resolves with its summary once it has ended. */
function liveLoad(url: string, bodyFile: string, rate: number, seconds: number, latencyFile: string) {
  const args = [process.execPath, join(benchDir, 'fixed-rate.ts'), url, bodyFile, String(rate), String(seconds)];
  const child = launch('1', args, { LATENCY_FILE: latencyFile });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise<Record<string, number>>((resolve) =>
    child.once('exit', () => resolve(JSON.parse(output.trim().split('\n').at(-1) || '{}'))),
  );
}

export async function backlogDrain(o: BacklogOptions): Promise<string> {
  const sinkPort = await o.freePort();
  const dsn = `http://benchkey@127.0.0.1:${sinkPort}/1`;
  let sink: ChildProcess | undefined;
  const startSink = async () => {
    sink = launch('1', [process.execPath, join(benchDir, 'sink.ts')], { PORT: String(sinkPort) });
    await waitForHttp(`http://127.0.0.1:${sinkPort}/`);
  };
  await startSink();
  const port = await o.freePort();
  const origin = `http://127.0.0.1:${port}`;
  const url = `${origin}/monitoring`;
  const most = String(o.small * 2 + 100_000); // the backlog, and live traffic spooled meanwhile
  const probeFile = join(o.work, 'loop-backlog.txt');
  const relay = launch(
    '0',
    [process.execPath, '--import', join(benchDir, 'loop-probe.ts'), o.relayMain],
    relayEnv(port, dsn, join(o.work, 'spool-backlog'), {
      LOOP_PROBE_FILE: probeFile,
      SPOOL_MODE: 'durable',
      SPOOL_MAX_ENVELOPES: most,
      SPOOL_PER_CLIENT_ENVELOPES: most,
      SPOOL_MAX_BYTES: String(4 * GiB),
      SPOOL_PER_CLIENT_BYTES: String(4 * GiB),
      RETRY_MAX_MS: '2000',
    }),
  );
  await waitForHttp(`${origin}/healthz`);
  const pid = relay.pid as number;
  const smallFile = join(o.work, 'backlog-small.txt');
  writeFileSync(smallFile, errorEnvelope(dsn));

  wrk(url, smallFile, 50, 1); // warm-up
  const capacity = wrk(url, smallFile, 50, o.seconds).okPerSecond;
  const rate = o.liveRate ?? Math.max(10, Math.round(capacity / 2));
  const quietFile = join(o.work, 'latency-quiet.txt');
  let quietPeak = 0; // bytes spooled under the live load alone (durable mode commits each envelope first)
  const quietRun = liveLoad(url, smallFile, rate, o.seconds * 2, quietFile);
  const quietFrom = Date.now();
  for (let done = false; !done; ) {
    quietPeak = Math.max(quietPeak, await gauge(origin, 'relay_spool_bytes'));
    done = await Promise.race([quietRun.then(() => true), sleep(POLL_MS).then(() => false)]);
  }
  const quiet = await quietRun;
  const quietP99 = p99Between(quietFile, quietFrom, Date.now());
  console.log(
    `  durable capacity ${capacity.toFixed(0)}/s; live load ${rate}/s: quiet p99 ${quietP99.toFixed(1)} ms (achieved ${quiet.achieved?.toFixed(0)}/s, spool peak ${(quietPeak / 1024).toFixed(0)} KiB)`,
  );

  const drains: Drain[] = [];
  const backlogs = [
    {
      name: `${o.small} × ${(errorEnvelope(dsn).length / 1024).toFixed(0)} KB`,
      count: o.small,
      body: errorEnvelope(dsn),
      concurrency: 32,
    },
    { name: `${o.large} × 10 MiB`, count: o.large, body: largeEnvelope(dsn), concurrency: 4 },
  ].filter((b) => b.count > 0);
  for (const backlog of backlogs) {
    await stop(sink as ChildProcess);
    const fillFrom = Date.now();
    const failed = await fill(url, backlog.body, backlog.count, backlog.concurrency);
    const fillSeconds = (Date.now() - fillFrom) / 1000;
    const spooled = await gauge(origin, 'relay_spool_envelopes');
    console.log(
      `  ${backlog.name}: spooled ${spooled} in ${fillSeconds.toFixed(1)} s with upstream down (${failed} not answered 200); ${execFileSync(tool('du'), ['-sh', join(o.work, 'spool-backlog')], { encoding: 'utf8' }).split('\t')[0]} on disk`,
    );
    resetPeak(pid);
    // The live load starts first (a process takes a second to start on a busy machine), then upstream comes back.
    const latencyFile = join(o.work, `latency-${drains.length}.txt`);
    const live = liveLoad(url, smallFile, rate, o.drainSeconds, latencyFile);
    let ended = false;
    void live.then(() => {
      ended = true;
    });
    await sleep(1500);
    await startSink();
    const back = Date.now();
    const bytes = backlog.count * backlog.body.length;
    // Drained: the spool holds no more than under live load alone, plus 1 % of the backlog.
    const threshold = quietPeak + bytes * 0.01;
    const curve: Array<[number, number]> = [];
    let most = 0;
    let noticed = Number.NaN;
    let drained = Number.NaN;
    while (!ended && Number.isNaN(drained)) {
      const left = await gauge(origin, 'relay_spool_bytes');
      curve.push([(Date.now() - back) / 1000, Math.min(100, (left / bytes) * 100)]);
      most = Math.max(most, left);
      if (Number.isNaN(noticed) && left < most) noticed = Date.now();
      if (left <= threshold) drained = Date.now();
      else await sleep(POLL_MS);
    }
    const summary = await live;
    const drain: Drain = {
      name: backlog.name,
      count: backlog.count,
      bytes,
      fillSeconds,
      noticeSeconds: (noticed - back) / 1000,
      drainSeconds: (drained - back) / 1000,
      liveP99: p99Between(latencyFile, back, Number.isNaN(drained) ? Date.now() : drained),
      longestBlock: longestBlock(probeFile, back, Number.isNaN(drained) ? Date.now() : drained),
      liveRate: rate,
      peakRss: peakRssMib(pid),
      curve,
    };
    drains.push(drain);
    const left = curve.at(-1)?.[1] ?? Number.NaN;
    const spooledAfter = await gauge(origin, 'relay_spool_envelopes');
    console.log(
      `  ${backlog.name}: ${Number.isNaN(drained) ? `NOT drained in ${o.drainSeconds} s (${left.toFixed(0)} % left)` : `drained in ${drain.drainSeconds.toFixed(1)} s`}, first after ${drain.noticeSeconds.toFixed(1)} s; live p99 ${drain.liveP99.toFixed(1)} ms (whole live run: achieved ${summary.achieved?.toFixed(0)}/s, p99 ${summary.p99?.toFixed(1)} ms, errors ${summary.errors}, non-2xx ${summary.non2xx}; ${spooledAfter} envelopes spooled as it ended); longest event-loop block ${drain.longestBlock.toFixed(0)} ms; peak RSS ${drain.peakRss.toFixed(0)} MiB`,
    );
    await waitForDrain(origin, quietPeak);
  }
  await stop(relay);
  await stop(sink as ChildProcess);
  return backlogReport(drains, quietP99, capacity, errorEnvelope(dsn).length);
}

/** Between backlogs: the rest of the spool goes, so the next starts from the same place. */
async function waitForDrain(origin: string, level: number): Promise<void> {
  for (let i = 0; i < 600 && (await gauge(origin, 'relay_spool_bytes')) > level; i++) await sleep(POLL_MS);
}

function backlogReport(drains: readonly Drain[], quietP99: number, capacity: number, liveBytes: number): string {
  const rows: Cell[][] = drains.map((d) => {
    const perSecond = d.count / d.drainSeconds;
    return [
      d.name,
      d.fillSeconds,
      d.noticeSeconds,
      d.drainSeconds,
      perSecond,
      (perSecond * d.bytes) / d.count / 1048576,
      d.liveRate,
      perSecond / d.liveRate,
      (perSecond * d.bytes) / d.count / (d.liveRate * liveBytes),
      d.liveP99,
      quietP99,
      d.liveP99 / quietP99,
      d.longestBlock,
      d.peakRss,
    ];
  });
  // 30 points over the longest drain; each series holds its last reading once it has drained.
  const span = Math.max(...drains.map((d) => d.curve.at(-1)?.[0] ?? 0));
  const times = Array.from({ length: 30 }, (_, i) => (span * i) / 29);
  const series = drains.map((d) => ({
    name: d.name,
    values: times.map((t) => [...d.curve].reverse().find(([at]) => at <= t)?.[1] ?? 100),
  }));
  const seconds = times.map((t) => t.toFixed(1));
  return [
    `backlog drain beside live traffic (${drains[0]?.liveRate ?? 0}/s; the durable capacity measured ${capacity.toFixed(0)}/s); target: drain ≥ 1× live, live p99 ≤ 2× quiet`,
    '',
    table(
      [
        'backlog',
        'fill s',
        'first s',
        'drain s',
        'drain env/s',
        'drain MiB/s',
        'live env/s',
        'drain × live',
        'bytes × live',
        'live p99 ms',
        'quiet p99 ms',
        'p99 × quiet',
        'loop block ms',
        'peak RSS MiB',
      ],
      rows,
    ),
    '',
    chart('backlog left (% of its bytes) by seconds since upstream came back', 'seconds', seconds, '%', series),
  ].join('\n');
}
