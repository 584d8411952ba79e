// Types every layer shares (the bottom layer, with errors.ts and memory/: it imports nothing of the relay's own).

/** Where an envelope goes and whose it is: what delivery needs besides the bytes. */
export interface Target {
  url: string;
  dsnKey: string;
  project: string;
}

/** One outcome for a client report: items of a category discarded for a reason (develop-docs "Client Reports"). */
export interface Discarded {
  /** Outcome reason: 'filtered' (an ignore rule), an inbound filter's id (Relay's FilterStatKey name, e.g.
   * 'browser-extensions'), 'ratelimit_backoff' (a rate limit). */
  reason: string;
  category: string;
  quantity: number;
}

/** SPOOL_MODE: `durable` commits an envelope to the spool before the 200, `fast` answers first. */
export type SpoolMode = 'durable' | 'fast';
