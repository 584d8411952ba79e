import type { EnvelopeItem } from '../envelope/types.ts';

// One latin1 decode per item for one envelope's byte scans (inbound-filter gate, then scrub prescan): each decode
// is a new string as long as the payload. Not a WeakMap (like parsed-event.ts): a WeakMap entry per envelope cost
// more than the decode it saved (docs/decisions/012, addendum). Created per envelope and dropped with it.

export class ItemTexts {
  #item: EnvelopeItem | undefined;
  #text = '';

  /** The item's payload one byte a character: every anchor the scans look for is ASCII. */
  of(item: EnvelopeItem): string {
    // One slot: an envelope carries one event-like item; a second one is decoded again, as before.
    if (item !== this.#item) {
      this.#text = item.payload.toString('latin1');
      this.#item = item;
    }
    return this.#text;
  }
}
