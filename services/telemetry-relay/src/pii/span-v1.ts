// A standalone span of the old format (`span` without the v2 content type): its description and data, scrubbed as
// a transaction's spans are (event.ts), with `_meta` in the span as Relay writes it.
import { mergeMeta, scrubSpanData } from './event.ts';
import type { CompiledScrub } from './settings.ts';
import { child, type Hit, newMeta, type Obj, type WalkState, walkValue } from './walk.ts';

export function scrubSpanV1(span: Obj, c: CompiledScrub): Hit[] {
  const state: WalkState = { c, hits: [], meta: newMeta() };
  const node = child(undefined, '', 'span');
  if (Object.hasOwn(span, 'description'))
    walkValue(state, span, 'description', child(node, 'description'), ['description'], 'span');
  scrubSpanData(state, span, child(node, 'data'), ['data'], 'span');
  if (Object.keys(state.meta).length > 0) mergeMeta(span, state.meta);
  return state.hits;
}
