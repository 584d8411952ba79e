// Cron check-ins (`check_in`): Relay keeps only the fields it knows (relay-monitors `CheckIn`) and scrubs none of
// them; a key it does not know never reaches Sentry. Here such keys are scrubbed instead, the known ones left alone.
import type { CompiledScrub } from './settings.ts';
import { child, type Hit, newMeta, type Obj, type WalkState, walkValue } from './walk.ts';

const KNOWN = new Set([
  'check_in_id',
  'monitor_slug',
  'status',
  'environment',
  'duration',
  'monitor_config',
  'contexts',
]);

/** Scrubs the check-in in place; returns what matched. No `_meta`: not part of a check-in. */
export function scrubCheckIn(checkIn: Obj, c: CompiledScrub): Hit[] {
  const state: WalkState = { c, hits: [], meta: newMeta() };
  for (const key of Object.keys(checkIn)) {
    if (!KNOWN.has(key)) walkValue(state, checkIn, key, child(undefined, key), [key], 'check_in');
  }
  return state.hits;
}
