// The peers a user would pick instead of the relay (../shared/peers/, beside the repository; BENCH_PEERS_DIR to
// point elsewhere): the Fastify + undici relay, header-only and FULL_PARSE=1, and header-only with the relay's own V8
// and malloc flags. ES modules ignore NODE_PATH, so the file is copied into bench/.peers/ (git-ignored) where
// `fastify` and `undici` resolve from the workspace.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const scratch = fileURLToPath(new URL('./.peers/', import.meta.url));

/** The DSN the peer allows (the only one): its envelopes carry it instead of the relay's. */
export const PEER_DSN = 'https://abc123@o1.ingest.example.com/42';

export interface PeerSpec {
  name: string;
  /** The copied script, run with node from the scratch folder. */
  script: string;
  env: Record<string, string>;
  path: string;
}

/**
 * What the relay runs with (Dockerfile, bench/run.ts): 8 MiB semi-spaces, where V8 on a large host picks 32 MiB for a
 * process without the flag, so the plain peers scavenge about a quarter as often (docs/decisions/038); two V8 helper
 * threads instead of four (decision 043).
 */
export const RELAY_RUNTIME_ENV = {
  NODE_OPTIONS: '--max-semi-space-size=8 --v8-pool-size=2',
  MALLOC_ARENA_MAX: '1',
  MALLOC_MMAP_THRESHOLD_: '262144',
};

/** The peers to run, or a reason there are none (the shared folder is not there). */
export function fastifyPeers(upstream: string, ports: readonly [number, number, number?]): PeerSpec[] | string {
  const dir = process.env.BENCH_PEERS_DIR ?? join(repoRoot, '..', 'shared', 'peers');
  const source = join(dir, 'relay-fastify-undici.mjs');
  if (!existsSync(source)) return `no peers: ${source} not found (set BENCH_PEERS_DIR)`;
  mkdirSync(scratch, { recursive: true });
  const script = join(scratch, 'relay-fastify-undici.mjs');
  copyFileSync(source, script);
  return [
    { name: 'fastify peer', env: { FULL_PARSE: '0' } },
    { name: 'fastify peer, full', env: { FULL_PARSE: '1' } },
    // Only where a third port is given (bench/run.ts; the growth sweeps run the two above).
    ...(ports[2] === undefined
      ? []
      : [{ name: 'fastify peer, relay flags', env: { FULL_PARSE: '0', ...RELAY_RUNTIME_ENV } }]),
  ].map(({ name, env }, i) => ({
    name,
    script,
    env: { ...env, PORT: String(ports[i]), UPSTREAM: upstream },
    path: '/tunnel',
  }));
}

interface Round {
  rps: number;
  p99: number;
  cpuUs: number;
}

const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/**
 * Each relay against each peer round by round (the two ran seconds apart, so a neighbour's load hits both), then the
 * median of those ratios: what the targets of issue 12 are judged by.
 */
export function printPeerRatios(results: ReadonlyMap<string, readonly Round[]>): void {
  const peers = ['fastify peer, full', 'fastify peer', 'fastify peer, relay flags'].filter((name) => results.has(name));
  const ours = [...results.keys()].filter((name) => name.startsWith('relay') || name.startsWith('baseline'));
  if (peers.length === 0) return;
  console.log('\nratios to the peers, round by round (median of the rounds)');
  for (const name of ours) {
    const runs = results.get(name) ?? [];
    const columns = peers.map((peer) => {
      const against = results.get(peer) ?? [];
      const rps = medianOf(runs.map((run, i) => run.rps / (against[i]?.rps ?? Number.NaN)));
      const p99 = medianOf(runs.map((run, i) => run.p99 / (against[i]?.p99 ?? Number.NaN)));
      const cpu = medianOf(runs.map((run, i) => run.cpuUs / (against[i]?.cpuUs ?? Number.NaN)));
      return `× ${peer}: ${rps.toFixed(2)} (p99 × ${p99.toFixed(2)}, CPU/env × ${cpu.toFixed(2)})`;
    });
    console.log(`  ${name.padEnd(20)} ${columns.join('   ')}`);
  }
}
