// One latin1 decode and one shared byte scan (item-scan.ts) per item for an envelope's stages (ignore rules, filter
// gate, scrub prescan), made per envelope and dropped with it; not a WeakMap like parsed-event.ts, whose entries cost
// more than the decode saved (decision 012's addendum).
import type { EnvelopeItem } from '../envelope/types.ts';
import type { ScanPlan } from './item-scan.ts';

export class ItemTexts {
  #item: EnvelopeItem | undefined;
  #text = '';
  #scanned: EnvelopeItem | undefined;
  #plan: ScanPlan | undefined;
  #found = 0;

  /** The item's payload one byte a character: every anchor the scans look for is ASCII. */
  of(item: EnvelopeItem): string {
    // One slot: an envelope carries one event-like item; a second one is decoded again, as before.
    if (item !== this.#item) {
      this.#text = item.latin1 ?? item.payload.toString('latin1');
      this.#item = item;
    }
    return this.#text;
  }

  /** `plan.found` of the item's payload, once per item and plan (one slot, as `of`). */
  found(item: EnvelopeItem, plan: ScanPlan): number {
    if (item !== this.#scanned || plan !== this.#plan) {
      this.#found = plan.found(item.payload);
      this.#scanned = item;
      this.#plan = plan;
    }
    return this.#found;
  }
}
