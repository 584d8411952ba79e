// One attack on the web container with what judges it running alongside: a kubelet-like liveness prober, the
// container's memory sampled, and a visitor loading a page every quarter second. The figures are printed as one line
// ("hostile: web …") and checked by expectSurvived.
import { expect } from 'vitest';
import { type ProbeReport, type ProberOptions, percentile, startProber } from './liveness-prober.ts';
import { type MemoryReport, sampleMemory } from './memory-sampler.ts';
import type { ContainerState, PodContainer } from './pod.ts';

const MiB = 1024 * 1024;

export interface WebBounds {
  probe: Omit<ProberOptions, 'url'>;
  livenessP95Ms: number;
  /** Peak anonymous memory must stay below this. */
  memoryCeilingBytes: number;
}

/** What became of one page request: its status (or why it has none) and how long it took. */
export interface PageAnswer {
  status: number | 'reset' | 'timeout';
  ms: number;
  retryAfter?: string | undefined;
}

export async function getPage(url: string, headers: Record<string, string> = {}, timeoutMs = 15_000) {
  const started = performance.now();
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    const retryAfter = response.headers.get('retry-after') ?? undefined;
    return { status: response.status, ms: performance.now() - started, retryAfter };
  } catch (error) {
    const status = (error as Error).name === 'TimeoutError' ? ('timeout' as const) : ('reset' as const);
    return { status, ms: performance.now() - started };
  }
}

/** Counts of answers by status and the p50/p95 of their times, e.g. {"200": {n: 40, p50: 12, p95: 30}}. */
export function summary(answers: readonly PageAnswer[]): Record<string, { n: number; p50: number; p95: number }> {
  const statuses = [...new Set(answers.map((a) => String(a.status)))];
  return Object.fromEntries(
    statuses.map((status) => {
      const ms = answers.filter((a) => String(a.status) === status).map((a) => a.ms);
      return [status, { n: ms.length, p50: Math.round(percentile(ms, 0.5)), p95: Math.round(percentile(ms, 0.95)) }];
    }),
  );
}

export interface WebSurvival {
  probes: ProbeReport;
  memory: MemoryReport;
  state: ContainerState;
  /** The visitor's page loads. */
  visitor: PageAnswer[];
}

/** A visitor loading `url` every `everyMs` (each on its own, not waiting for the previous one). */
function visitor(url: string, everyMs = 250) {
  const loads: Promise<PageAnswer>[] = [];
  const timer = setInterval(() => loads.push(getPage(url)), everyMs);
  return {
    async stop() {
      clearInterval(timer);
      return Promise.all(loads);
    },
  };
}

/** Runs `attack` with the judges around it, prints one line of figures and returns them. */
export async function webUnderAttack<T>(
  web: PodContainer,
  options: { name: string; bounds: WebBounds; pageUrl: string; memoryLimitBytes: number },
  attack: () => Promise<T>,
  note: (result: T) => string,
): Promise<WebSurvival & { result: T }> {
  const memory = sampleMemory(web.container().getId());
  const prober = startProber({ url: web.livenessUrl(), ...options.bounds.probe });
  const visits = visitor(options.pageUrl);
  const result = await attack();
  const survival: WebSurvival = {
    visitor: await visits.stop(),
    probes: await prober.stop(),
    memory: await memory.stop(),
    state: await web.state(),
  };
  const { probes, memory: m, state } = survival;
  process.stdout.write(
    `hostile: web ${options.name}: liveness p95 ${probes.p95Ms.toFixed(0)} ms (control ${probes.controlP95Ms.toFixed(0)} ms), max ${probes.maxMs.toFixed(0)} ms, ` +
      `${probes.failures.length}/${probes.count} failed; peak RSS ${(m.peakRssBytes / MiB).toFixed(0)} MiB of ` +
      `${(options.memoryLimitBytes / MiB).toFixed(0)}${state.oomKilled ? ', OOM-killed' : ''}` +
      `${state.restartCount > 0 ? `, restarted ${state.restartCount} times` : ''}; ${note(result)}; ` +
      `visitor ${JSON.stringify(summary(survival.visitor))}\n`,
  );
  return { ...survival, result };
}

/**
 * Within its memory, not restarted, liveness answered within the bounds whatever the attack costs in CPU (the probe
 * is answered on the admin port from a worker thread). Soft, so one run shows every way it fell short.
 */
export function expectSurvived(bounds: WebBounds, f: WebSurvival): void {
  expect.soft(f.probes.failures.slice(0, 5), 'liveness probes that failed (first 5)').toEqual([]);
  // Beyond what the same probes to an idle server took meanwhile: the machine's other load is not the service's.
  expect
    .soft(f.probes.p95Ms - f.probes.controlP95Ms, 'liveness p95 beyond the idle control server (ms)')
    .toBeLessThanOrEqual(bounds.livenessP95Ms);
  expect.soft(f.state, 'container state').toMatchObject({ running: true, restartCount: 0, oomKilled: false });
  expect.soft(f.memory.peakRssBytes, 'peak anonymous memory (bytes)').toBeLessThan(bounds.memoryCeilingBytes);
}
