// Session updates (`session`) and aggregates (`sessions`): with SCRUB_IP_ADDRESSES the address in `attrs.ip_address`
// (or the `{{auto}}` asking Relay to fill it from the connection, which Relay does even then) is removed; nothing
// else in a session is personal data to Relay (services/processor/session.rs).
import type { CompiledScrub } from './settings.ts';
import { type Hit, isObject, type Obj } from './walk.ts';

/** Scrubs the session in place; returns what matched (empty: unchanged). No `_meta`: not part of a session. */
export function scrubSession(session: Obj, c: CompiledScrub): Hit[] {
  if (!c.removeIpFields) return [];
  const attrs = session.attrs;
  if (!isObject(attrs) || attrs.ip_address === undefined) return [];
  delete attrs.ip_address;
  return [{ rule: '@anything:remove', field: 'session' }];
}
