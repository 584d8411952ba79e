// The concurrency sweep of the growth bench: the web image at its pod's limits (growth-pod.ts: 1 CPU, 512 MiB, the
// ConfigMap's environment, load shedding sized from the cgroup as deployed) answering `/catalog?limit=50` to 10, 100
// and 1 000 keep-alive connections. Per step: answers and documents per second, the share refused with 503, p50/p99
// of every answer, the server's CPU per document, its peak RSS, and which of shedding's thresholds refused.

import { setTimeout as sleep } from 'node:timers/promises';
import { median } from '@app/test-kit';
import { chart, num, table, times } from '@app/test-kit/growth-report';
import { sampleAcceptQueue } from './growth-accept-queue.ts';
import { type LoadResult, runLoad } from './growth-load.ts';
import { type PodLimits, readPodLimits, scrape, serverP99Ms, startPod } from './growth-pod.ts';

export const CONNECTIONS = [10, 100, 1_000] as const;
const PAGE = '/catalog?limit=50';
const MiB = 1024 * 1024;
// Shedding answers Retry-After: 5 and fails readiness; the next step starts once the pod is ready again.
const READY_WAIT_MS = 30_000;

interface Step extends LoadResult {
  shed: Record<string, number>;
  /** p99 of the 200s inside the process (a histogram bucket's bound): the rest of wrk's p99 queued outside it. */
  serverP99Ms: number;
  /** Most connections waiting in the kernel to be accepted at once (growth-accept-queue.ts). */
  peakAcceptQueue: number;
}

async function waitReady(url: string): Promise<void> {
  for (let waited = 0; waited < READY_WAIT_MS; waited += 250) {
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await sleep(250);
  }
  throw new Error(`the pod was not ready again ${READY_WAIT_MS} ms after a step`);
}

// A histogram bucket's bound: "≤ 250"; past the last bound, "> 5 000"; no 200 at all, n/a.
const bucketBound = (ms: number) =>
  ms === Number.POSITIVE_INFINITY ? `> ${num(LAST_BUCKET_MS)}` : Number.isNaN(ms) ? 'n/a' : `≤ ${num(ms)}`;
const LAST_BUCKET_MS = 5_000;

const diff = (after: Record<string, number>, before: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(after)
      .map(([reason, n]) => [reason, n - (before[reason] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );

export async function concurrencySweep(
  image: string,
  upstream: { dsn: string; envelopeUrl: string },
  rounds: number,
  seconds: number,
): Promise<string> {
  const limits = readPodLimits();
  const pod = await startPod(image, limits, {
    SENTRY_DSN: upstream.dsn,
    // As deployed the server SDK posts to the relay's Service; here straight to the capture server.
    SERVER_TUNNEL_URL: upstream.envelopeUrl,
  });
  const steps = new Map<number, Step[]>();
  let oomKilled = false;
  try {
    await runLoad({ url: `${pod.url}${PAGE}`, pid: pod.pid, connections: 10, seconds }); // warm-up
    for (let round = 1; round <= rounds; round++) {
      for (const connections of CONNECTIONS) {
        await waitReady(pod.url);
        const before = await scrape(pod.metricsUrl);
        const acceptQueue = sampleAcceptQueue(Number(new URL(pod.url).port));
        const result = await runLoad({ url: `${pod.url}${PAGE}`, pid: pod.pid, connections, seconds });
        const peakAcceptQueue = acceptQueue.stop();
        const after = await scrape(pod.metricsUrl);
        const shed = diff(after.shed, before.shed);
        const step = { ...result, shed, serverP99Ms: serverP99Ms(before, after), peakAcceptQueue };
        steps.set(connections, [...(steps.get(connections) ?? []), step]);
        console.log(
          `concurrency round ${round} ${String(connections).padStart(5)} connections: ${num(result.okPerSecond)} docs/s, ` +
            `${(result.refusedShare * 100).toFixed(1)} % 503, p99 ${num(result.p99Ms, 1)} ms, max ${num(result.maxMs)} ms, ` +
            `accept queue ≤ ${num(peakAcceptQueue)}, ` +
            `in-process p99 ${bucketBound(step.serverP99Ms)} ms, RSS ${num(result.peakRssBytes / MiB)} MiB, ` +
            `shed ${JSON.stringify(step.shed)}`,
        );
      }
    }
    oomKilled = pod.oomKilled();
  } finally {
    pod.stop();
  }
  return concurrencyReport(steps, limits, rounds, seconds, oomKilled);
}

function concurrencyReport(
  steps: Map<number, Step[]>,
  limits: PodLimits,
  rounds: number,
  seconds: number,
  oomKilled: boolean,
): string {
  const m = (connections: number, pick: (s: Step) => number) => median((steps.get(connections) ?? []).map(pick));
  const [first] = CONNECTIONS;
  const rows = CONNECTIONS.map((c) => {
    const shed: Record<string, number> = {};
    for (const step of steps.get(c) ?? []) {
      for (const [reason, n] of Object.entries(step.shed)) shed[reason] = (shed[reason] ?? 0) + n;
    }
    const reasons = Object.entries(shed).map(([reason, n]) => `${reason} ${num(n)}`);
    return [
      `${num(c)} (${times(c, first)})`,
      num(m(c, (s) => s.rps)),
      num(m(c, (s) => s.okPerSecond)),
      `${(m(c, (s) => s.refusedShare) * 100).toFixed(1)} %`,
      num(
        m(c, (s) => s.p50Ms),
        1,
      ),
      `${num(
        m(c, (s) => s.p99Ms),
        1,
      )} (${times(
        m(c, (s) => s.p99Ms),
        m(first, (s) => s.p99Ms),
      )})`,
      num(m(c, (s) => s.maxMs)),
      num(m(c, (s) => s.peakAcceptQueue)),
      bucketBound(m(c, (s) => s.serverP99Ms)),
      num(m(c, (s) => s.timeouts)),
      m(c, (s) => s.cpuMsPerDocument).toFixed(3),
      `${num(m(c, (s) => s.peakRssBytes) / MiB)} (${times(
        m(c, (s) => s.peakRssBytes),
        m(first, (s) => s.peakRssBytes),
      )})`,
      reasons.join(', ') || 'none',
    ];
  });
  const limitsLine = `${limits.cpus} CPU, ${num(limits.memoryBytes / MiB)} MiB`;
  return [
    `concurrency sweep: the image at its pod's limits (${limitsLine}, shedding as deployed), ${PAGE}, ` +
      `medians of ${rounds} rounds × ${seconds} s; OOM-killed: ${oomKilled ? 'YES' : 'no'}`,
    '',
    table(
      [
        'connections (× work)',
        'answers/s',
        'documents/s',
        '503 share',
        'p50 ms',
        'p99 ms (× first)',
        'max ms',
        'peak accept queue',
        'in-process p99 ms of the 200s',
        'timeouts',
        'CPU ms/doc',
        `peak RSS MiB of ${num(limits.memoryBytes / MiB)}`,
        'refused by (all rounds)',
      ],
      rows,
    ),
    '',
    chart('p99 and 503 share by connections', 'connections', [...CONNECTIONS], 'p99 ms; 503 share in %', [
      { name: 'p99 ms', values: CONNECTIONS.map((c) => m(c, (s) => s.p99Ms)) },
      { name: '503 %', values: CONNECTIONS.map((c) => m(c, (s) => s.refusedShare) * 100) },
    ]),
  ].join('\n');
}
