// SDK 11's item containers (`{"version": 2, "ingest_settings": …, "items": […]}`): span v2, log and trace metric
// items, each scrubbed as Relay scrubs it (processing/{spans,logs,trace_metrics}): attributes by name, a log's body
// with the message's partial rules only (Relay PR #5272); `_meta` per item, where Relay writes it.
import { scrubAttributes } from './attributes.ts';
import { mergeMeta } from './event.ts';
import type { CompiledScrub } from './settings.ts';
import { child, type FieldKind, type Hit, isObject, newMeta, type Obj, scrubText, type WalkState } from './walk.ts';

export type ContainerKind = 'span' | 'log' | 'trace_metric';

const FIELD: Record<ContainerKind, FieldKind> = { span: 'span', log: 'log', trace_metric: 'metric' };

/** Scrubs the container in place; returns what matched (empty: unchanged). */
export function scrubContainer(container: Obj, c: CompiledScrub, kind: ContainerKind): Hit[] {
  const hits: Hit[] = [];
  const field = FIELD[kind];
  // SCRUB_IP_ADDRESSES: Relay must not fill `client.address`/`user.ip_address` from the connection either.
  const settings = container.ingest_settings;
  if (c.removeIpFields && isObject(settings) && settings.infer_ip !== undefined && settings.infer_ip !== 'never') {
    settings.infer_ip = 'never';
    hits.push({ rule: 'infer_ip:never', field });
  }
  // A container's items, or (an SDK before v10's containers) the one item itself.
  const items = Array.isArray(container.items) ? container.items : [container];
  for (const item of items) {
    if (!isObject(item)) continue;
    const state: WalkState = { c, hits, meta: newMeta() };
    scrubOne(state, item, kind, field);
    if (Object.keys(state.meta).length > 0) mergeMeta(item, state.meta);
  }
  return hits;
}

function scrubOne(state: WalkState, item: Obj, kind: ContainerKind, field: FieldKind): void {
  if (isObject(item.attributes)) {
    scrubAttributes(state, item.attributes, child(undefined, 'attributes'), ['attributes'], field);
  }
  if (kind === 'log' && typeof item.body === 'string') {
    const scrubbed = scrubText(state, item.body, child(undefined, 'body'), ['body'], field, state.c.message);
    if (scrubbed !== undefined) item.body = scrubbed;
  }
}
