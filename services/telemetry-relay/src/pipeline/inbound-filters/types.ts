// The shape every inbound filter has: Relay's id (its FilterStatKey name, the outcome reason), which items it
// judges, a byte-level gate over (key, string value) pairs found in the payload, and the exact decision.

/** The JSON object of an event, transaction or CSP report. */
export type Json = Record<string, unknown>;

/** The item kinds the filters judge: events (type `event`), transactions, and the CSP reports the relay builds. */
export type FilteredKind = 'event' | 'transaction' | 'security';

export interface InboundFilter {
  /** Relay's FilterStatKey name: the reason in outcomes and metrics. */
  id: string;
  kinds: readonly FilteredKind[];
  /**
   * Keys (lowercase) whose string values can decide a match. With `mayMatch` this is the gate: an item none of whose
   * values under these keys passes `mayMatch` cannot match, and is not parsed.
   */
  keys: readonly string[];
  mayMatch(key: string, value: string): boolean;
  /** Text whose presence anywhere makes the item a candidate (for what is read from many values, like frames). */
  needles?: readonly string[];
  /** Relay's decision on the parsed item. */
  matches(item: Json): boolean;
}
