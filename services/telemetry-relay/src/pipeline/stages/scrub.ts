// Data scrubbing as Sentry Relay's defaults do it, on the items the filters left (../scrub.ts, src/pii/).
import type { Hit } from '../../pii/index.ts';
import type { Flight } from '../flight.ts';
import { proceed, type Stage } from '../stage.ts';

/** Scrubs the project's sensitive data from the items; `onHit` counts each rule's hits. */
export function scrubStage(onHit: (hit: Hit) => void): Stage<Flight> {
  return (flight) => {
    const { scrub } = flight.authorized.settings;
    if (scrub === undefined || flight.items.length === 0) return proceed(flight);
    const result = scrub(flight.items, flight.envelope.bytes.length, flight.texts);
    for (const hit of result.hits) onHit(hit);
    if (result.items !== flight.items) flight.rewritten = true;
    flight.items = result.items;
    return proceed(flight);
  };
}
