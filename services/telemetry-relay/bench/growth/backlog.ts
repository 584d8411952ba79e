// Backlog drain: the durable relay's upstream goes down (the sink is stopped), a backlog is posted and spooled, the
// sink comes back, and live traffic at half the relay's measured capacity (open loop, bench/fixed-rate.ts) flows
// while the spool drains. Target (decision 042): the backlog drains at ≥ 1× the live rate, live p99 ≤ 40 ms.
// The relay's retry backoff is capped at 2 s here (RETRY_MAX_MS): what is measured is the drain, not how long the
// relay takes to notice upstream is back (reported apart, as the delay to the first drained envelope).
import { type ChildProcess, execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Cell, chart, table } from '@app/test-kit/growth-report';
import { browserErrorEnvelope, largeEnvelope } from '../envelopes.ts';
import {
  benchDir,
  cpuSeconds,
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
import { describeSpan, type LiveSpan, liveSpan, longestBlock, readLive } from './live-latency.ts';
import { fill, liveLoad, quietSpan } from './live-load.ts';

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
  /** Live latency from upstream back until drained (its windows' median p99 is the one held against the bound). */
  live: LiveSpan;
  liveRate: number;
  peakRss: number;
  /** Cores the relay used from upstream back until drained. */
  relayCores: number;
  /** The longest the relay's event loop was blocked while the backlog drained, ms (bench/loop-probe.ts). */
  longestBlock: number;
  /** [seconds since upstream came back, share of the backlog's bytes still spooled]. */
  curve: Array<[number, number]>;
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
  writeFileSync(smallFile, browserErrorEnvelope(dsn));

  wrk(url, smallFile, 50, 1); // warm-up
  const capacity = wrk(url, smallFile, 50, o.seconds).okPerSecond;
  const rate = o.liveRate ?? Math.max(10, Math.round(capacity / 2));
  // The generator's floor (straight to the sink) and the relay quiet, each at the live rate, in 2-s windows after a
  // second's warm-up: quiet p99 is the windows' median, their spread the noise band the ratio must stand out of.
  const floor = await quietSpan(`http://127.0.0.1:${sinkPort}/api/1/envelope/`, smallFile, rate, o, 'floor');
  console.log(`  live ${rate}/s straight to the sink (the generator's floor): ${describeSpan(floor.span)}`);
  const quiet = await quietSpan(url, smallFile, rate, o, 'quiet', { origin, pid });
  const quietPeak = quiet.spoolPeak; // bytes spooled under the live load alone (durable mode commits each first)
  console.log(
    `  durable capacity ${capacity.toFixed(0)}/s; live load ${rate}/s quiet: ${describeSpan(quiet.span)} (achieved ${quiet.summary.achieved?.toFixed(0)}/s, ${quiet.summary.unsent} unsent, relay ${quiet.relayCores.toFixed(2)} cores, spool peak ${(quietPeak / 1024).toFixed(0)} KiB)`,
  );

  const drains: Drain[] = [];
  const backlogs = [
    {
      name: `${o.small} × ${(browserErrorEnvelope(dsn).length / 1024).toFixed(0)} KB`,
      count: o.small,
      body: browserErrorEnvelope(dsn),
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
    const cpuBack = cpuSeconds(pid);
    let cpuDrained = Number.NaN;
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
      if (left <= threshold) {
        drained = Date.now();
        cpuDrained = cpuSeconds(pid);
      } else await sleep(POLL_MS);
    }
    const summary = await live;
    const drain: Drain = {
      name: backlog.name,
      count: backlog.count,
      bytes,
      fillSeconds,
      noticeSeconds: (noticed - back) / 1000,
      drainSeconds: (drained - back) / 1000,
      relayCores: (cpuDrained - cpuBack) / ((drained - back) / 1000),
      live: liveSpan(readLive(latencyFile), back, Number.isNaN(drained) ? Date.now() : drained),
      longestBlock: longestBlock(probeFile, back, Number.isNaN(drained) ? Date.now() : drained),
      liveRate: rate,
      peakRss: peakRssMib(pid),
      curve,
    };
    drains.push(drain);
    const left = curve.at(-1)?.[1] ?? Number.NaN;
    const spooledAfter = await gauge(origin, 'relay_spool_envelopes');
    console.log(
      `  ${backlog.name}: ${Number.isNaN(drained) ? `NOT drained in ${o.drainSeconds} s (${left.toFixed(0)} % left)` : `drained in ${drain.drainSeconds.toFixed(1)} s`}, first after ${drain.noticeSeconds.toFixed(1)} s; live ${describeSpan(drain.live)} (whole live run: achieved ${summary.achieved?.toFixed(0)}/s, p99 ${summary.p99?.toFixed(1)} ms, ${summary.unsent} unsent, errors ${summary.errors} ${JSON.stringify(summary.errorKinds ?? {})}, ${summary.expired} sockets not reused near their keep-alive timeout, non-2xx ${summary.non2xx}; ${spooledAfter} envelopes spooled as it ended); relay ${drain.relayCores.toFixed(2)} cores; longest event-loop block ${drain.longestBlock.toFixed(0)} ms; peak RSS ${drain.peakRss.toFixed(0)} MiB`,
    );
    await waitForDrain(origin, quietPeak);
  }
  // Quiet once more after the drains: how far the quiet figure itself moves within one run.
  const again = await quietSpan(url, smallFile, rate, o, 'quiet-after', { origin, pid });
  console.log(
    `  live ${rate}/s quiet again after the drains: ${describeSpan(again.span)}, relay ${again.relayCores.toFixed(2)} cores`,
  );
  await stop(relay);
  await stop(sink as ChildProcess);
  return backlogReport(
    drains,
    { floor: floor.span, quiet: quiet.span, again: again.span, cores: quiet.relayCores },
    capacity,
    browserErrorEnvelope(dsn).length,
  );
}

/** Between backlogs: the rest of the spool goes, so the next starts from the same place. */
async function waitForDrain(origin: string, level: number): Promise<void> {
  for (let i = 0; i < 600 && (await gauge(origin, 'relay_spool_bytes')) > level; i++) await sleep(POLL_MS);
}

interface QuietSpans {
  floor: LiveSpan;
  quiet: LiveSpan;
  again: LiveSpan;
  /** Cores the relay used with the live load alone. */
  cores: number;
}

/** Decision 042's bound at the deployed size, held on the median of ≥ 5 quiet runs; one run prints its own verdict. */
const BOUND = { liveP99Ms: 40, drainTimesLive: 1, runs: 5 };

/** "pass"/"FAIL" for one drain against decision 042's bound: live p99 (windows' median) and the drain in bytes. */
function boundVerdict(d: Drain, liveBytes: number): string {
  const bytesTimesLive = d.bytes / d.drainSeconds / (d.liveRate * liveBytes); // NaN (a FAIL) when not drained
  const p99 = d.live.median <= BOUND.liveP99Ms;
  const drain = bytesTimesLive >= BOUND.drainTimesLive;
  const verdict =
    p99 && drain ? 'pass' : `FAIL (${[p99 ? '' : 'p99', drain ? '' : 'drain'].filter(Boolean).join(', ')})`;
  const drained = Number.isFinite(bytesTimesLive) ? `drain ${bytesTimesLive.toFixed(2)}× live` : 'not drained';
  return `${d.name}: p99 ${d.live.median.toFixed(1)} ms, ${drained}: ${verdict}`;
}

const spread = (span: LiveSpan) => `${span.median.toFixed(1)} (${span.min.toFixed(0)}–${span.max.toFixed(0)})`;

function backlogReport(drains: readonly Drain[], q: QuietSpans, capacity: number, liveBytes: number): string {
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
      d.live.p99,
      d.live.median,
      d.live.p99 / q.quiet.median,
      `${(d.live.lateShare * 100).toFixed(2)} %`,
      d.relayCores,
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
    `backlog drain beside live traffic (${drains[0]?.liveRate ?? 0}/s; the durable capacity measured ${capacity.toFixed(0)}/s); target (decision 042): drain ≥ 1× live, live p99 ≤ ${BOUND.liveP99Ms} ms; p99 × quiet printed beside it`,
    `live p99 ms, median of 2-s windows (lowest–highest): straight to the sink ${spread(q.floor)}; relay quiet ${spread(q.quiet)}, again after the drains ${spread(q.again)}; the relay quiet used ${q.cores.toFixed(2)} cores; sent late: ${[q.floor, q.quiet, q.again].map((s) => `${(s.lateShare * 100).toFixed(2)} %`).join(', ')}`,
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
        "its windows' median ms",
        'p99 × quiet',
        'sent late',
        'relay cores',
        'loop block ms',
        'peak RSS MiB',
      ],
      rows,
    ),
    `decision 042's bound (live p99 as its windows' median ≤ ${BOUND.liveP99Ms} ms, drain ≥ ${BOUND.drainTimesLive}× live in bytes; met when the median of ≥ ${BOUND.runs} quiet runs holds), this run: ${drains.map((d) => boundVerdict(d, liveBytes)).join('; ')}`,
    '',
    chart('backlog left (% of its bytes) by seconds since upstream came back', 'seconds', seconds, '%', series),
  ].join('\n');
}
