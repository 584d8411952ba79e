// The legacy user feedback item (`user_report`: event_id, name, email, comments): its three texts get the field
// rules, as the same fields of a feedback event's context do (Relay only validates this item; Sentry turns it into
// a feedback). No `_meta`: not part of the item's format.
import type { CompiledScrub } from './settings.ts';
import { child, type Hit, newMeta, type Obj, type WalkState, walkValue } from './walk.ts';

const FIELDS = ['name', 'email', 'comments'];

export function scrubUserReport(report: Obj, c: CompiledScrub): Hit[] {
  const state: WalkState = { c, hits: [], meta: newMeta() };
  for (const field of FIELDS) {
    if (field in report) walkValue(state, report, field, child(undefined, field), [field], 'report');
  }
  return state.hits;
}
