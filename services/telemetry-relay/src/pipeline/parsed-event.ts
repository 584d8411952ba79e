// One JSON.parse per item, whichever stage asks first (the ignore rules, the inbound filters, later scrubbing):
// keyed by the item object, which lives as long as its request.
import type { EnvelopeItem } from '../envelope/types.ts';

const parsed = new WeakMap<EnvelopeItem, unknown>();
const INVALID = Symbol('invalid JSON');

/** The item's payload as JSON, parsed once; undefined when it is not JSON (upstream answers for that). */
export function parsedPayload(item: EnvelopeItem): unknown {
  let value = parsed.get(item);
  if (value === undefined) {
    try {
      value = JSON.parse(item.payload.toString('utf8'));
    } catch {
      value = INVALID;
    }
    parsed.set(item, value);
  }
  return value === INVALID ? undefined : value;
}
