// Callers on other hosts (decision 050): a page's origin must be one its project lists.
import { quote } from '../../core/errors.ts';
import type { Arrival } from '../flight.ts';
import { proceed, refusal, type Stage } from '../stage.ts';

/** Refuses (403) a cross-origin caller its project does not list; a project without a list checks nothing. */
export const originStage: Stage<Arrival> = (arrival) => {
  const origins = arrival.authorized?.settings.origins;
  if (arrival.origin === undefined || origins === undefined || origins.has(arrival.origin)) return proceed(arrival);
  return refusal('origin_not_allowed', originRefusal(arrival.origin));
};

export const originRefusal = (origin: string): string =>
  `pages on ${quote(origin, 128)} may not send to this relay's projects`;
