// Issue 26's rows of the web bench: the framework against a bare render doing the same work per request, Sentry's
// cost against @sentry/react-router's on React Router's own server, and the peer as the old harness ran it (request
// log piped into the bench) beside the peer as its docs run it in production (log to /dev/null).

import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { CaptureServer } from '@app/test-kit';
import { median } from '@app/test-kit';
import { prepareSentryRrPeer, startSentryRrPeer } from './peer-sentry-rr.ts';
import { type Peer, startSsrRrPeer } from './peer-ssr-rr.ts';
import { line, type Result, type Target, wrk } from './wrk.ts';

export const PEER_PIPED = 'ssr-rr, log piped to bench';
export const SENTRY_PEER = 'sentry-rr (RR + @sentry/react-router)';
export const BARE_PER_REQUEST = 'bare stream, loaders per request';
export const BARE_FASTIFY = 'bare, loaders per request, Fastify';

type Server = { child: ChildProcess; port: number };
type StartBare = (env: Record<string, string>) => Promise<Server>;

export interface FairnessRows {
  targets: Target[];
  /** Envelopes and transactions the instrumented peer sent: its SDK was on. */
  sent(): { envelopes: number; transactions: number };
  stop(): Promise<void>;
}
const PEER_PROJECT = '26';

/** Starts the extra contenders, pinned like the rest (core 0). `peerDir`: the prepared ssr-rr, if peers are on. */
export async function startFairnessRows(
  startBare: StartBare,
  peerDir: string | undefined,
  capture: CaptureServer,
  page: string,
  peerPage: string,
): Promise<FairnessRows> {
  const pin = ['-c', '0'];
  const bare = await startBare({ RENDER: 'stream', CONTEXT: 'per-request' });
  // The same answered from a plain Fastify route: what Fastify itself adds, the floor under the framework's ratio.
  const bareFastify = await startBare({ RENDER: 'stream', CONTEXT: 'per-request', SERVE: 'fastify' });
  const sentryDir = peerDir ? prepareSentryRrPeer() : undefined;
  const peers: Peer[] = [];
  if (peerDir) peers.push(await startSsrRrPeer(peerDir, pin, { stdout: 'pipe' }));
  if (sentryDir) peers.push(await startSentryRrPeer(sentryDir, capture.dsn({ projectId: PEER_PROJECT }), pin));
  const [piped, sentry] = peers;
  return {
    targets: [
      { name: BARE_PER_REQUEST, url: `http://127.0.0.1:${bare.port}${page}`, pid: bare.child.pid },
      { name: BARE_FASTIFY, url: `http://127.0.0.1:${bareFastify.port}${page}`, pid: bareFastify.child.pid },
      ...(piped ? [{ name: PEER_PIPED, url: `${piped.url}${peerPage}`, pid: piped.pid }] : []),
      ...(sentry ? [{ name: SENTRY_PEER, url: `${sentry.url}${peerPage}`, pid: sentry.pid }] : []),
    ],
    sent() {
      const envelopes = capture.envelopes.filter((e) => e.projectId === PEER_PROJECT);
      const transactions = envelopes.flatMap((e) => e.items).filter((i) => i.header.type === 'transaction').length;
      return { envelopes: envelopes.length, transactions };
    },
    async stop() {
      for (const server of [bare, bareFastify]) {
        server.child.kill('SIGTERM');
        await once(server.child, 'exit');
      }
      for (const peer of peers) await peer.stop();
    },
  };
}

type RatioLine = (label: string, name: string, base: string, target?: string) => void;

/** CPU per document Sentry adds (on − off, per round), each SDK on its own framework, and ours ÷ theirs. */
function sentryCost(results: Map<string, Result[]>, names: { ours: [string, string]; theirs: [string, string] }) {
  const added = ([on, off]: [string, string]) => {
    const a = results.get(on) ?? [];
    const b = results.get(off) ?? [];
    return a.map((r, i) => r.cpuMs - (b[i]?.cpuMs ?? Number.NaN));
  };
  const ours = added(names.ours);
  const theirs = added(names.theirs);
  if (ours.length === 0 || theirs.length === 0) return;
  const rounds = (values: number[], digits: number) => values.map((v) => v.toFixed(digits)).join(', ');
  console.log('  CPU per document Sentry adds (ms, Sentry on − off in the same round):');
  console.log(`    ours (@sentry/node, our framework)        ${median(ours).toFixed(3)} (${rounds(ours, 3)})`);
  console.log(`    @sentry/react-router on react-router-serve ${median(theirs).toFixed(3)} (${rounds(theirs, 3)})`);
  const ratios = ours.map((v, i) => v / (theirs[i] ?? Number.NaN));
  console.log(`    ours ÷ theirs ${median(ratios).toFixed(2)} (${rounds(ratios, 2)})  target ≤ 1`);
}

/** Our CPU per document above the Fastify floor, per round: the framework's own cost in µs (decision 037). */
function aboveFloor(results: Map<string, Result[]>, oursOff: string): void {
  const ours = results.get(oursOff) ?? [];
  const floor = results.get(BARE_FASTIFY) ?? [];
  if (ours.length === 0 || floor.length === 0) return;
  const above = ours.map((r, i) => (r.cpuMs - (floor[i]?.cpuMs ?? Number.NaN)) * 1000);
  console.log(
    `  Sentry off − bare via Fastify, µs CPU per document ${median(above).toFixed(0)} (${above.map((v) => v.toFixed(0)).join(', ')})`,
  );
}

/** Prints issue 26's ratios; rows whose contenders did not run (BENCH_ONLY, BENCH_PEERS=off) are left out. */
export function reportFairness(
  results: Map<string, Result[]>,
  ratioLine: RatioLine,
  names: { ours: string; oursOff: string; peer: string },
): void {
  ratioLine('Sentry off / bare, same work', names.oursOff, BARE_PER_REQUEST, '  target ≥ 0.85');
  ratioLine('bare via Fastify / bare', BARE_FASTIFY, BARE_PER_REQUEST, '  (what Fastify adds: the floor)');
  ratioLine(
    'Sentry off / bare via Fastify',
    names.oursOff,
    BARE_FASTIFY,
    '  (the framework beyond Fastify; 037 proposes ≥ 0.85)',
  );
  aboveFloor(results, names.oursOff);
  ratioLine('SSR / sentry-rr', names.ours, SENTRY_PEER, '  target ≥ 1.5 (Sentry on both)');
  ratioLine('ssr-rr log /dev/null ÷ piped', names.peer, PEER_PIPED, '  (the old harness)');
  ratioLine('SSR / ssr-rr, log piped', names.ours, PEER_PIPED, '  (as measured before issue 26)');
  sentryCost(results, { ours: [names.ours, names.oursOff], theirs: [SENTRY_PEER, names.peer] });
}

/** The instrumented peer must have traced ≈ 10 % of what it served, or its row measures an SDK that was off. */
export function checkPeerSent(results: Map<string, Result[]>, sent: { envelopes: number; transactions: number }): void {
  if (!results.has(SENTRY_PEER)) return;
  console.log(`  sentry-rr sent ${sent.envelopes} envelopes, ${sent.transactions} transactions to the capture server`);
  if (sent.transactions === 0) throw new Error('sentry-rr sent no transaction: its SDK was not on');
}

type Names = { ours: string; oursOff: string; peer: string };

/**
 * The same comparisons with the contenders loaded at once (one wrk each on core 1, the servers sharing core 0), so
 * all meet the same neighbours. Each contender's CPU is pooled over the rounds (CPU summed ÷ documents summed): four
 * on one core serve a few hundred documents a round each, and one major GC's worker-thread CPU (up to ≈ 1 ms per
 * document of such a round) then decides a round's ratio (docs/decisions/032-framework-cost-and-at-once.md).
 */
export async function runAtOnce(targets: Target[], names: Names, rounds: number, rewarmSeconds = 0): Promise<void> {
  const byName = new Map(targets.map((t) => [t.name, t]));
  // The four as issue 26 first ran them; the pair as the interleaved rounds compare them, one other on the core.
  const groups = [
    { label: 'four at once', names: [names.ours, names.oursOff, names.peer, SENTRY_PEER] },
    { label: 'pair', names: [names.ours, names.peer] },
    { label: 'three', names: [names.oursOff, BARE_PER_REQUEST, BARE_FASTIFY] },
  ].map((group) => ({ ...group, targets: group.names.flatMap((name) => byName.get(name) ?? []) }));
  const pooled = groups.map(() => new Map<string, { cpu: number; main: number; requests: number }>());
  for (let round = 1; round <= rounds; round++) {
    for (const [g, group] of groups.entries()) {
      if (group.targets.length < 2) continue;
      if (rewarmSeconds > 0) await Promise.all(group.targets.map((target) => wrk(target, rewarmSeconds)));
      const results = await Promise.all(group.targets.map((target) => wrk(target)));
      for (const [i, r] of results.entries()) {
        const name = group.targets[i]?.name ?? '';
        console.log(`at once ${round} ${group.label.padEnd(12)} ${name.padEnd(30)} ${line(r)}`);
        const sum = pooled[g]?.get(name) ?? { cpu: 0, main: 0, requests: 0 };
        pooled[g]?.set(name, {
          cpu: sum.cpu + r.cpuMs * r.requests,
          main: sum.main + r.mainMs * r.requests,
          requests: sum.requests + r.requests,
        });
      }
    }
  }
  const lines: string[] = [];
  for (const [g, group] of groups.entries()) {
    const sums = pooled[g];
    if (!sums || sums.size < 2) continue;
    const of = (name: string, part: 'cpu' | 'main' = 'cpu') => {
      const sum = sums.get(name);
      return sum ? sum[part] / sum.requests : Number.NaN;
    };
    const ratio = (label: string, ours: string, theirs: string) =>
      lines.push(
        `    ${`${label}, ${group.label}`.padEnd(40)} ${(of(theirs) / of(ours)).toFixed(2)}` +
          `  (main thread ${(of(theirs, 'main') / of(ours, 'main')).toFixed(2)}; ms ${of(ours).toFixed(3)} ÷ ${of(theirs).toFixed(3)})`,
      );
    if (sums.has(names.peer)) ratio('SSR / ssr-rr', names.ours, names.peer);
    if (sums.has(SENTRY_PEER)) {
      ratio('SSR / sentry-rr', names.ours, SENTRY_PEER);
      const added = (of(names.ours) - of(names.oursOff)) / (of(SENTRY_PEER) - of(names.peer));
      lines.push(`    ${`Sentry adds, ours ÷ theirs, ${group.label}`.padEnd(40)} ${added.toFixed(2)}`);
    }
    if (sums.has(BARE_PER_REQUEST)) ratio('Sentry off / bare, same work', names.oursOff, BARE_PER_REQUEST);
    if (sums.has(BARE_FASTIFY)) ratio('bare via Fastify / bare', BARE_FASTIFY, BARE_PER_REQUEST);
  }
  if (lines.length > 0) console.log(`  run at once, ${rounds} rounds pooled (per CPU-s: their CPU ÷ ours):`);
  for (const text of lines) console.log(text);
}
