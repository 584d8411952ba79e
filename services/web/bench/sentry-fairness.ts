// Issue 26's rows of the web bench: the framework against a bare render doing the same work per request, Sentry's
// cost against @sentry/react-router's on React Router's own server, and the peer as the old harness ran it (request
// log piped into the bench) beside the peer as its docs run it in production (log to /dev/null).
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { CaptureServer } from '@app/test-kit';
import { prepareSentryRrPeer, startSentryRrPeer } from './peer-sentry-rr.ts';
import { type Peer, startSsrRrPeer } from './peer-ssr-rr.ts';
import { median, type Result, type Target, wrk } from './wrk.ts';

export const PEER_PIPED = 'ssr-rr, log piped to bench';
export const SENTRY_PEER = 'sentry-rr (RR + @sentry/react-router)';
export const BARE_PER_REQUEST = 'bare stream, loaders per request';

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
  const sentryDir = peerDir ? prepareSentryRrPeer() : undefined;
  const peers: Peer[] = [];
  if (peerDir) peers.push(await startSsrRrPeer(peerDir, pin, { stdout: 'pipe' }));
  if (sentryDir) peers.push(await startSentryRrPeer(sentryDir, capture.dsn({ projectId: PEER_PROJECT }), pin));
  const [piped, sentry] = peers;
  return {
    targets: [
      { name: BARE_PER_REQUEST, url: `http://127.0.0.1:${bare.port}${page}`, pid: bare.child.pid },
      ...(piped ? [{ name: PEER_PIPED, url: `${piped.url}${peerPage}`, pid: piped.pid }] : []),
      ...(sentry ? [{ name: SENTRY_PEER, url: `${sentry.url}${peerPage}`, pid: sentry.pid }] : []),
    ],
    sent() {
      const envelopes = capture.envelopes.filter((e) => e.projectId === PEER_PROJECT);
      const transactions = envelopes.flatMap((e) => e.items).filter((i) => i.header.type === 'transaction').length;
      return { envelopes: envelopes.length, transactions };
    },
    async stop() {
      bare.child.kill('SIGTERM');
      await once(bare.child, 'exit');
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

/** Prints issue 26's ratios; rows whose contenders did not run (BENCH_ONLY, BENCH_PEERS=off) are left out. */
export function reportFairness(
  results: Map<string, Result[]>,
  ratioLine: RatioLine,
  names: { ours: string; oursOff: string; peer: string },
): void {
  ratioLine('Sentry off / bare, same work', names.oursOff, BARE_PER_REQUEST, '  target ≥ 0.85');
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
 * all meet the same neighbours: on a machine other sessions load, the steadier reading. Ratios of CPU per document.
 */
export async function runAtOnce(targets: Target[], names: Names, rounds: number): Promise<void> {
  const byName = new Map(targets.map((t) => [t.name, t]));
  const groups = [
    [names.ours, names.oursOff, names.peer, SENTRY_PEER],
    [names.oursOff, BARE_PER_REQUEST],
  ].map((group) => group.flatMap((name) => byName.get(name) ?? []));
  const rows = new Map<string, number[]>();
  const add = (label: string, value: number) => rows.set(label, [...(rows.get(label) ?? []), value]);
  for (let round = 1; round <= rounds; round++) {
    for (const group of groups) {
      if (group.length < 2) continue;
      const cpu = new Map(
        (await Promise.all(group.map((target) => wrk(target)))).map((r, i) => [group[i]?.name, r.cpuMs]),
      );
      const of = (name: string) => cpu.get(name) ?? Number.NaN;
      if (cpu.has(names.peer)) add('SSR / ssr-rr', of(names.peer) / of(names.ours));
      if (cpu.has(SENTRY_PEER)) {
        add('SSR / sentry-rr', of(SENTRY_PEER) / of(names.ours));
        add('Sentry adds, ours ÷ theirs', (of(names.ours) - of(names.oursOff)) / (of(SENTRY_PEER) - of(names.peer)));
      }
      if (cpu.has(BARE_PER_REQUEST)) add('Sentry off / bare, same work', of(BARE_PER_REQUEST) / of(names.oursOff));
    }
  }
  if (rows.size > 0) console.log('  run at once (per CPU-s; Sentry adds: ms ÷ ms):');
  for (const [label, values] of rows) {
    console.log(`    ${label.padEnd(28)} ${median(values).toFixed(2)} (${values.map((v) => v.toFixed(2)).join(', ')})`);
  }
}
