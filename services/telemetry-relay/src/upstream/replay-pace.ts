// Replay's pace: how many spooled envelopes may be in flight at once, so a backlog drains without starving live
// traffic. Every 100 ms the event loop's utilisation over the last interval decides: over REPLAY_MAX_LOOP_PERCENT the
// window halves, under it the window grows by a quarter (AIMD, as TCP's congestion window). Why this signal and these
// steps: docs/decisions/029-replay-pacing.md.
import { performance } from 'node:perf_hooks';

export interface ReplayPaceOptions {
  /** Most event-loop utilisation, (0, 1], replay may raise the loop to; 1 leaves replay unpaced. */
  maxUtilization: number;
  /** Most replayed envelopes in flight (upstream's concurrency less the share kept for live sends). */
  maxWindow: number;
  /** The window grew: replay may lease more now. */
  onGrow(): void;
  /** Utilisation since the previous call, [0, 1]: perf_hooks' eventLoopUtilization unless a test scripts it. */
  utilization?: () => number;
  intervalMs?: number;
}

export interface ReplayPace {
  /** Replayed envelopes allowed in flight now, at least 1: a busy relay drains slowly, but it drains. */
  readonly window: number;
  stop(): void;
}

const INTERVAL_MS = 100;

/** The window after one interval at `utilization` (the rule itself, kept pure for its spec table). */
export function nextReplayWindow(window: number, utilization: number, maxUtilization: number, maxWindow: number) {
  if (maxUtilization >= 1) return maxWindow;
  if (utilization > maxUtilization) return Math.max(1, Math.floor(window / 2));
  return Math.min(maxWindow, window + Math.max(1, Math.floor(window / 4)));
}

/** Shares of upstream's concurrency: a quarter is kept for live sends, replay never takes the last of it. */
export function replayWindowLimit(concurrency: number): number {
  return Math.max(1, concurrency - Math.floor(concurrency / 4));
}

export function startReplayPace(options: ReplayPaceOptions): ReplayPace {
  const { maxUtilization, maxWindow } = options;
  if (maxUtilization >= 1) return { window: maxWindow, stop() {} };
  const utilization = options.utilization ?? loopUtilization();
  // A restart with a backlog starts slow and opens up within about two seconds if the loop has room.
  let window = 1;
  const timer = setInterval(() => {
    const before = window;
    window = nextReplayWindow(window, utilization(), maxUtilization, maxWindow);
    if (window > before) options.onGrow();
  }, options.intervalMs ?? INTERVAL_MS);
  timer.unref();
  return {
    get window() {
      return window;
    },
    stop() {
      clearInterval(timer);
    },
  };
}

/** perf_hooks' event-loop utilisation over the time since the previous call. */
function loopUtilization(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    return utilization;
  };
}
