// Replay's pace: how many spooled envelopes may be in flight at once, so a backlog drains without making live traffic
// wait. Every 100 ms the event loop's lateness decides: over REPLAY_MAX_LOOP_DELAY_MS the window shrinks, under it the
// window grows by a quarter (AIMD, as TCP's congestion window). Why this signal and these steps: decisions 029, 034.
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface ReplayPaceOptions {
  /** Most the event loop may run late, ms, while replay opens up; 0 leaves replay unpaced. */
  maxLoopDelayMs: number;
  /** Most replayed envelopes in flight (upstream's concurrency less the share kept for live sends). */
  maxWindow: number;
  /** The window grew: replay may lease more now. */
  onGrow(): void;
  /** How late the loop ran at most since the previous call, ms: perf_hooks' histogram unless a test scripts it. */
  loopDelay?: () => number;
  /** Called with each new window (the relay_replay_window gauge). */
  onWindow?(window: number): void;
  intervalMs?: number;
}

export interface ReplayPace {
  /** Replayed envelopes allowed in flight now, at least 1: a busy relay drains slowly, but it drains. */
  readonly window: number;
  stop(): void;
}

const INTERVAL_MS = 100;
/** The histogram's timer period: lateness is measured to about this, and costs 100 wake-ups a second. */
const RESOLUTION_MS = 10;

/**
 * The window after one interval in which the loop ran up to `delayMs` late (the rule itself, kept pure for its spec
 * table). Over the bound by up to twice it shrinks by a quarter, beyond that it halves: one late turn (a collection,
 * a commit) costs replay little, a loop that stays late sheds replay fast.
 */
export function nextReplayWindow(window: number, delayMs: number, maxDelayMs: number, maxWindow: number) {
  if (maxDelayMs <= 0) return maxWindow;
  if (delayMs > 2 * maxDelayMs) return Math.max(1, Math.floor(window / 2));
  if (delayMs > maxDelayMs) return Math.max(1, Math.floor((window * 3) / 4));
  return Math.min(maxWindow, window + Math.max(1, Math.floor(window / 4)));
}

/** Shares of upstream's concurrency: a quarter is kept for live sends, replay never takes the last of it. */
export function replayWindowLimit(concurrency: number): number {
  return Math.max(1, concurrency - Math.floor(concurrency / 4));
}

export function startReplayPace(options: ReplayPaceOptions): ReplayPace {
  const { maxLoopDelayMs, maxWindow } = options;
  if (maxLoopDelayMs <= 0) {
    options.onWindow?.(maxWindow);
    return { window: maxWindow, stop() {} };
  }
  const delay: LatenessSampler = options.loopDelay ? { sample: options.loopDelay, stop() {} } : loopLateness();
  // A restart with a backlog starts slow and opens up within about two seconds if the loop keeps up.
  let window = 1;
  options.onWindow?.(window);
  const timer = setInterval(() => {
    const before = window;
    window = nextReplayWindow(window, delay.sample(), maxLoopDelayMs, maxWindow);
    if (window !== before) options.onWindow?.(window);
    if (window > before) options.onGrow();
  }, options.intervalMs ?? INTERVAL_MS);
  timer.unref();
  return {
    get window() {
      return window;
    },
    stop() {
      clearInterval(timer);
      delay.stop();
    },
  };
}

interface LatenessSampler {
  sample(): number;
  stop(): void;
}

/** The longest the loop ran late since the previous sample, ms, from perf_hooks' event-loop delay histogram. */
function loopLateness(): LatenessSampler {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  return {
    sample() {
      // The histogram records the whole period between its timer's runs; lateness is what exceeds the resolution.
      const late = histogram.count > 0 ? histogram.max / 1e6 - RESOLUTION_MS : 0;
      histogram.reset();
      return Math.max(0, late);
    },
    stop() {
      histogram.disable();
    },
  };
}
