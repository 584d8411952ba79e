// The outcome reasons this folder drops items for: one list the loss ledger and the dashboards count by.

/**
 * `reason` of the client report's `discarded_events` (a relay that is not registered with Sentry may fill only
 * that list; Relay's `rate_limited_events` is kept for registered Relays) and of relay_items_dropped_total.
 */
export const QUOTA_DROP_REASONS = {
  /** A local quota (settings.ts `Quota`) was exceeded. */
  quota: 'quota',
  /** The spike shield sampled an error fingerprint down (spike-shield.ts). */
  spikeShield: 'spike_shield',
} as const;

export type QuotaDropReason = (typeof QUOTA_DROP_REASONS)[keyof typeof QUOTA_DROP_REASONS];
