// Where a container's time went during an attack: the CPU it used and how often its CFS quota throttled it (its
// cgroup's cpu.stat, read on the host, v1 or v2), and the service's event-loop delay over the same span (prom-client's
// nodejs_eventloop_lag_* gauges, whose histogram is reset at every scrape). Undefined parts where not visible.
import { existsSync, readFileSync } from 'node:fs';

export interface CpuPressure {
  cpuSeconds?: number;
  /** Share of the quota's periods (100 ms each) in which the container was throttled. */
  throttledShare?: number;
  throttledSeconds?: number;
  /** Event-loop delay over the span, ms. */
  loopLag?: { p50: number; p99: number; max: number } | undefined;
  /** The main thread's time on a CPU and waiting for one (runnable, not scheduled: the host's other load), s. */
  mainThread?: { runS: number; waitS: number } | undefined;
}

/** /proc/<pid>/schedstat of the container's main process (seen from the host): run and run-queue wait, s. */
function schedstat(pid: number | undefined): { runS: number; waitS: number } | undefined {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { runS: (run ?? 0) / 1e9, waitS: (wait ?? 0) / 1e9 };
  } catch {
    return undefined;
  }
}

const field = (text: string, key: string) => {
  const match = new RegExp(`^${key} (\\d+)$`, 'm').exec(text);
  return match ? Number(match[1]) : undefined;
};

/** cpu.stat as { usageS, periods, throttled, throttledS } for v1 (cgroupfs) or v2. */
function cpuStat(id: string): { usageS: number; periods: number; throttled: number; throttledS: number } | undefined {
  const v1 = `/sys/fs/cgroup/cpu/docker/${id}/cpu.stat`;
  if (existsSync(v1)) {
    const stat = readFileSync(v1, 'utf8');
    const usage = Number(readFileSync(`/sys/fs/cgroup/cpuacct/docker/${id}/cpuacct.usage`, 'utf8'));
    return {
      usageS: usage / 1e9,
      periods: field(stat, 'nr_periods') ?? 0,
      throttled: field(stat, 'nr_throttled') ?? 0,
      throttledS: (field(stat, 'throttled_time') ?? 0) / 1e9,
    };
  }
  const dir = [`/sys/fs/cgroup/docker/${id}/`, `/sys/fs/cgroup/system.slice/docker-${id}.scope/`].find((d) =>
    existsSync(`${d}cpu.stat`),
  );
  if (!dir) return undefined;
  const stat = readFileSync(`${dir}cpu.stat`, 'utf8');
  return {
    usageS: (field(stat, 'usage_usec') ?? 0) / 1e6,
    periods: field(stat, 'nr_periods') ?? 0,
    throttled: field(stat, 'nr_throttled') ?? 0,
    throttledS: (field(stat, 'throttled_usec') ?? 0) / 1e6,
  };
}

async function scrapeLag(metricsUrl: string): Promise<CpuPressure['loopLag']> {
  try {
    const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5_000) })).text();
    const gauge = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
    const ms = (name: string) => Math.round(gauge(`nodejs_eventloop_lag_${name}_seconds`) * 1000);
    return { p50: ms('p50'), p99: ms('p99'), max: ms('max') };
  } catch {
    return undefined;
  }
}

/** Starts measuring now; `stop()` returns what happened since. */
export async function measureCpuPressure(containerId: string, metricsUrl: string, pid?: number) {
  const before = cpuStat(containerId);
  const schedBefore = schedstat(pid);
  await scrapeLag(metricsUrl); // resets the lag histogram
  return {
    async stop(): Promise<CpuPressure> {
      const loopLag = await scrapeLag(metricsUrl);
      const after = cpuStat(containerId);
      const schedAfter = schedstat(pid);
      const round = (n: number) => Math.round(n * 10) / 10;
      const mainThread =
        schedBefore && schedAfter
          ? { runS: round(schedAfter.runS - schedBefore.runS), waitS: round(schedAfter.waitS - schedBefore.waitS) }
          : undefined;
      if (!before || !after) return { loopLag, mainThread };
      const periods = after.periods - before.periods;
      return {
        cpuSeconds: Math.round((after.usageS - before.usageS) * 10) / 10,
        throttledShare: periods > 0 ? Math.round(((after.throttled - before.throttled) / periods) * 100) / 100 : 0,
        throttledSeconds: Math.round((after.throttledS - before.throttledS) * 10) / 10,
        loopLag,
        mainThread,
      };
    },
  };
}
