// Connection sweep under the pod's limits (deploy/k8s: 256 MiB, 1 CPU): each contender runs in a container with
// --memory 256m --cpus 1 pinned to CPU 0 on the host network — the relay from its image built from this checkout
// (test-kit's buildImage: a cache hit when nothing changed), the Fastify peers in the base image with the repository
// mounted read-only. wrk opens 50 → 1 000 → 5 000 connections from CPU 1 and posts the 5 KB error envelope; the
// relay's MAX_CONNECTIONS (2 048) is its default.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE_IMAGE, buildImage, median } from '@app/test-kit';
import { type Cell, chart, table } from '@app/test-kit/growth-report';
import { browserErrorEnvelope } from '../envelopes.ts';
import { fastifyPeers, PEER_DSN } from '../peers.ts';
import { counters, peakRssMib, resetPeak, sleep, type WrkCounts, type WrkRun, waitForHttp, wrk } from './harness.ts';
import { describeRefusals } from './refusals.ts';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const tag = process.env.E2E_IMAGE_TAG || 'bench';
const relayImage = `ssr-telemetry/telemetry-relay:${tag}`;
const LIMITS = ['--memory', '256m', '--memory-swap', '256m', '--cpus', '1', '--cpuset-cpus', '0'];

export interface ConnectionsOptions {
  work: string;
  sinkOrigin: string;
  dsn: string;
  freePort: () => Promise<number>;
  steps: readonly number[];
  seconds: number;
  rounds: number;
}

const docker = (args: string[]) => execFileSync('docker', args, { encoding: 'utf8', cwd: repoRoot }).trim();

interface Running {
  name: string;
  url: string;
  origin: string;
  container: string;
  pid: number;
  peer: boolean;
}

export async function connectionSweep(o: ConnectionsOptions): Promise<string> {
  await buildImage({ tag: relayImage, target: 'telemetry-relay' });
  const containers: string[] = [];
  const start = async (name: string, port: number, args: string[], path: string, peer: boolean) => {
    const container = `relay-growth-${process.pid}-${containers.length}`;
    containers.push(container);
    docker(['run', '-d', '--rm', '--name', container, '--network', 'host', ...LIMITS, ...args]);
    const url = `http://127.0.0.1:${port}${path}`;
    await waitForHttp(peer ? url : `http://127.0.0.1:${port}/healthz`);
    const pid = Number(docker(['inspect', '-f', '{{.State.Pid}}', container]));
    return { name, url, origin: `http://127.0.0.1:${port}`, container, pid, peer };
  };
  try {
    const running: Running[] = [];
    for (const mode of ['fast', 'durable'] as const) {
      const port = await o.freePort();
      const spool = join(o.work, `spool-connections-${mode}`);
      mkdirSync(spool, { recursive: true });
      chmodSync(spool, 0o777); // the image runs as uid 1000
      const env = {
        PORT: port,
        HOST: '127.0.0.1',
        ALLOWED_DSNS: o.dsn,
        TUNNEL_PATH: '/monitoring',
        SPOOL_MODE: mode,
        LOG_LEVEL: 'warn',
      };
      const envArgs = Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
      const volume = ['--read-only', '--tmpfs', '/tmp:rw,size=16m', '-v', `${spool}:/var/lib/telemetry-relay/spool`];
      running.push(await start(`relay (${mode})`, port, [...volume, ...envArgs, relayImage], '/monitoring', false));
    }
    const specs = fastifyPeers(o.sinkOrigin, [await o.freePort(), await o.freePort()]);
    for (const spec of typeof specs === 'string' ? [] : specs) {
      const envArgs = Object.entries(spec.env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
      const mount = ['-v', `${repoRoot}:${repoRoot}:ro`, '-w', join(repoRoot, 'services/telemetry-relay/bench/.peers')];
      const args = [...mount, ...envArgs, BASE_IMAGE, 'node', spec.script];
      running.push(await start(spec.name, Number(spec.env.PORT), args, spec.path, true));
    }
    const bodies = { relay: join(o.work, 'connections.txt'), peer: join(o.work, 'connections-peer.txt') };
    writeFileSync(bodies.relay, browserErrorEnvelope(o.dsn));
    writeFileSync(bodies.peer, browserErrorEnvelope(PEER_DSN));
    for (const c of running) wrk(c.url, c.peer ? bodies.peer : bodies.relay, 50, 1); // warm-up

    const points = new Map<string, WrkCounts & { peakRss: number; oom: boolean; refusedBy: string }>();
    for (const step of o.steps) {
      for (const c of running) {
        const runs: WrkRun[] = [];
        const rejected = async () => (c.peer ? new Map() : counters(c.origin, 'relay_envelopes_rejected_total'));
        const before = await rejected();
        resetPeak(c.pid);
        for (let round = 1; round <= o.rounds; round++) {
          runs.push(wrk(c.url, c.peer ? bodies.peer : bodies.relay, step, o.seconds));
          await sleep(500); // sockets of the last round close
        }
        const state = docker(['inspect', '-f', '{{.State.Running}} {{.State.OOMKilled}}', c.container]);
        const point = {
          okPerSecond: median(runs.map((r) => r.okPerSecond)),
          p50: median(runs.map((r) => r.p50)),
          p99: median(runs.map((r) => r.p99)),
          errorShare: median(runs.map((r) => r.errorShare)),
          peakRss: peakRssMib(c.pid),
          oom: state !== 'true false',
          refusedBy: describeRefusals(
            runs.map((r) => r.errors),
            c.peer ? undefined : { before, after: await rejected() },
          ),
        };
        points.set(`${c.name}@${step}`, point);
        console.log(
          `  ${String(step).padStart(5)} connections: ${c.name.padEnd(20)} ${point.okPerSecond.toFixed(0).padStart(6)}/s  p99 ${point.p99.toFixed(1)} ms  peak RSS ${point.peakRss.toFixed(0)} MiB  errors ${(point.errorShare * 100).toFixed(1)} % (${point.refusedBy})${point.oom ? '  NOT RUNNING / OOM-killed' : ''}`,
        );
      }
    }
    const rows: Cell[][] = [];
    for (const step of o.steps) {
      const peer = points.get(`fastify peer, full@${step}`);
      for (const c of running) {
        const p = points.get(`${c.name}@${step}`);
        if (!p) continue;
        rows.push([
          String(step),
          c.name,
          p.okPerSecond,
          p.p50,
          p.p99,
          `${(p.errorShare * 100).toFixed(1)} %`,
          p.peakRss,
          p.oom ? 'yes' : 'no',
          c.peer || !peer ? '' : p.okPerSecond / peer.okPerSecond,
          c.peer || !peer ? '' : p.p99 / peer.p99,
          p.refusedBy,
        ]);
      }
    }
    const labels = o.steps.map(String);
    const series = (pick: (p: WrkCounts & { peakRss: number }) => number) =>
      running.map((c) => ({
        name: c.name,
        values: o.steps.map((step) => {
          const p = points.get(`${c.name}@${step}`);
          return p ? pick(p) : Number.NaN;
        }),
      }));
    return [
      `connections, each in a container of 256 MiB and 1 CPU (medians of ${o.rounds} × ${o.seconds} s; errors: non-2xx and socket errors over attempts)`,
      '',
      table(
        [
          'conns',
          'contender',
          'ok/s',
          'p50 ms',
          'p99 ms',
          'errors',
          'peak RSS MiB',
          'OOM',
          '× peer full',
          'p99 × peer full',
          `errors by reason (relay's counter) and kind (wrk), all rounds`,
        ],
        rows,
      ),
      '',
      chart(
        'p99 (ms) by connections',
        'connections',
        labels,
        'ms',
        series((p) => p.p99),
      ),
      chart(
        'peak RSS (MiB) by connections, limit 256',
        'connections',
        labels,
        'MiB',
        series((p) => p.peakRss),
      ),
    ].join('\n');
  } finally {
    for (const container of containers) {
      try {
        docker(['rm', '-f', container]);
      } catch {}
    }
  }
}
