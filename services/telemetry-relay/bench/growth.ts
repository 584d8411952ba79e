// npm run bench:growth -w @app/telemetry-relay
//
// How the relay's cost grows with the work (issue 26, point 3): envelope size, connections under the pod's limits,
// and a spooled backlog draining beside live traffic. Each sweep prints a table with ratios to the peers and a
// Mermaid xychart-beta block that docs/benchmarks.md embeds. Separate from `npm run bench` (minutes, not seconds).
//
// Env (defaults are the issue's; smaller values for a quick run on a busy machine):
//   GROWTH_PARTS        sizes,connections,backlog
//   GROWTH_SIZES        1024,65536,1048576,20971520 (bytes)
//   GROWTH_CONNECTIONS  50,1000,5000
//   GROWTH_SECONDS (5), GROWTH_ROUNDS (3), BENCH_CONNECTIONS (50, the size sweep's)
//   GROWTH_BACKLOG      100000 (small envelopes), GROWTH_BACKLOG_LARGE 200 (10 MiB envelopes; 0 skips)
//   GROWTH_DRAIN_SECONDS 120 (longest the live load runs while a backlog drains)
//   GROWTH_LIVE_RATE    live envelopes/s beside the backlog (default half the measured capacity; fixed for an A/B)
//   GROWTH_RELAY_MAIN   the relay the backlog part runs (default this checkout's src/main.ts; another's for an A/B)
//   E2E_IMAGE_TAG       the relay image the connection sweep runs (ssr-telemetry/telemetry-relay:<tag>; built from
//                       this checkout each run, a cache hit when nothing changed)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@app/test-kit';
import { backlogDrain } from './growth/backlog.ts';
import { connectionSweep } from './growth/connections.ts';
import { benchDir, killAll, launch, relayMain, waitForHttp } from './growth/harness.ts';
import { sizeSweep } from './growth/sizes.ts';

const list = (name: string, fallback: string) =>
  (process.env[name] ?? fallback)
    .split(',')
    .filter((part) => part !== '')
    .map((part) => (Number.isNaN(Number(part)) ? part : Number(part)));
const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

const parts = list('GROWTH_PARTS', 'sizes,connections,backlog');
const seconds = number('GROWTH_SECONDS', 5);
const rounds = number('GROWTH_ROUNDS', 3);
const work = mkdtempSync(join(tmpdir(), 'relay-growth-'));

async function main(): Promise<void> {
  const sinkPort = await freePort();
  const sinkOrigin = `http://127.0.0.1:${sinkPort}`;
  launch('1', [process.execPath, join(benchDir, 'sink.ts')], { PORT: String(sinkPort) });
  await waitForHttp(`${sinkOrigin}/`);
  const dsn = `http://benchkey@127.0.0.1:${sinkPort}/1`;
  console.log(`relay growth bench, ${new Date().toISOString()}; work dir ${work}`);
  const out: string[] = [];
  if (parts.includes('sizes')) {
    const sizes = list('GROWTH_SIZES', '1024,65536,1048576,20971520') as number[];
    const connections = number('BENCH_CONNECTIONS', 50);
    out.push(await sizeSweep({ work, sinkOrigin, dsn, freePort, sizes, connections, seconds, rounds }));
  }
  if (parts.includes('connections')) {
    const steps = list('GROWTH_CONNECTIONS', '50,1000,5000') as number[];
    out.push(await connectionSweep({ work, sinkOrigin, dsn, freePort, steps, seconds, rounds }));
  }
  if (parts.includes('backlog')) {
    out.push(
      await backlogDrain({
        work,
        freePort,
        small: number('GROWTH_BACKLOG', 100_000),
        large: number('GROWTH_BACKLOG_LARGE', 200),
        drainSeconds: number('GROWTH_DRAIN_SECONDS', 120),
        seconds,
        relayMain: process.env.GROWTH_RELAY_MAIN ?? relayMain,
        liveRate: process.env.GROWTH_LIVE_RATE === undefined ? undefined : number('GROWTH_LIVE_RATE', 0),
      }),
    );
  }
  console.log(out.join('\n'));
}

try {
  await main();
} finally {
  killAll();
  // The backlog's spool holds up to 2 GiB; a relay still shutting down may add a file meanwhile (retried, so the
  // run's own error is not hidden behind ENOTEMPTY).
  rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 500 });
}
