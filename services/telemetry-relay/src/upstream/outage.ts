// Whether upstream is taking envelopes. Down (a send failed), new envelopes wait in the spool and one send at a time
// probes; any answer (even a 4xx) means it is back and everything waiting is due (`onBack`). Retries back off
// exponentially with equal jitter, so envelopes that failed together do not all come back together.
import type { ForwardResult } from './forward.ts';

export interface OutageOptions {
  /** Sends at once while upstream is up. */
  concurrency: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** Upstream went down: the first failure after it was up. */
  onDown(result: ForwardResult, url: string): void;
  /** Upstream answered after being down: the caller makes everything waiting due now. */
  onBack(result: ForwardResult): void;
  /** [0, 1); Math.random unless a test scripts it. */
  random?: () => number;
}

export interface Outage {
  readonly healthy: boolean;
  /** Sends allowed at once: the concurrency while upstream is up, one probe while it is down. */
  readonly sendLimit: number;
  /** A send to `url` failed. */
  failed(result: ForwardResult, url: string): void;
  /** Upstream answered a send (2xx, 4xx, 429: anything but a failure). */
  answered(result: ForwardResult): void;
  /** The delay before an envelope's next attempt after its `attempts`-th failure. */
  retryDelay(attempts: number): number;
}

export function createOutage(options: OutageOptions): Outage {
  const random = options.random ?? Math.random;
  let healthy = true;
  return {
    get healthy() {
      return healthy;
    },
    get sendLimit() {
      return healthy ? options.concurrency : 1;
    },
    failed(result, url) {
      if (!healthy) return;
      healthy = false;
      options.onDown(result, url);
    },
    answered(result) {
      if (healthy) return;
      healthy = true;
      options.onBack(result);
    },
    retryDelay(attempts) {
      const ceiling = Math.min(options.retryMaxMs, options.retryBaseMs * 2 ** Math.max(0, attempts - 1));
      return Math.round(ceiling / 2 + (random() * ceiling) / 2);
    },
  };
}
