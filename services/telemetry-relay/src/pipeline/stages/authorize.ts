// Authorization: the header's DSN must be one a project in force allows (../authorize.ts), and its project found.
import type { Arrival } from '../flight.ts';
import { guarded, type Stage } from '../stage.ts';

/** The header's DSN allowed (403 otherwise), with its project's stages. */
export const authorizeStage: Stage<Arrival> = guarded((arrival) => {
  arrival.authorized = arrival.projects.authorize(arrival.header);
  return arrival;
});
