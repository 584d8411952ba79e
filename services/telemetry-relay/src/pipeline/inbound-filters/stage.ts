// Beside the ignore rules, Relay's inbound filters. An event, transaction or CSP report one of them matches
// is dropped with the envelope's attachments, and reported with the filter's id as the reason (Relay's outcome
// `filtered` with its FilterStatKey). Items are parsed only past the gate, and at most once (parsed-event.ts).

import type { Discarded } from '../../core/types.ts';
import { itemCategory } from '../../envelope/categories.ts';
import { exceedsDepth, RELAY_MAX_JSON_DEPTH } from '../../envelope/json-depth.ts';
import type { EnvelopeItem } from '../../envelope/types.ts';
import { ScanPlan } from '../item-scan.ts';
import { ItemTexts } from '../item-text.ts';
import { parsedPayload } from '../parsed-event.ts';
import { asObject } from './event-fields.ts';
import { createGate, filteredKind } from './gate.ts';
import { enabledFilters, type InboundFilterSettings } from './settings.ts';
import type { FilteredKind, InboundFilter } from './types.ts';

export interface InboundFilterResult {
  /** The items to keep (the given array when nothing was dropped). */
  items: EnvelopeItem[];
  /** For metrics: the item type and the filter that dropped it. */
  dropped: Array<{ type: string; reason: string }>;
  /** For the client report. */
  discarded: Discarded[];
}

/** What a judged envelope without drops returns (nothing new per envelope on the hot path). */
const NONE_DROPPED: InboundFilterResult['dropped'] = Object.freeze([]) as unknown as InboundFilterResult['dropped'];
const NONE_DISCARDED: Discarded[] = Object.freeze([]) as unknown as Discarded[];

type Judge = { filters: InboundFilter[]; mayMatch: (item: EnvelopeItem, texts: ItemTexts) => boolean };

/** `plan`: the byte scan shared with the other stages (item-scan.ts), when the caller runs them all. */
export function createInboundFilters(
  settings: InboundFilterSettings,
  plan = new ScanPlan(),
): (items: EnvelopeItem[], texts?: ItemTexts) => InboundFilterResult {
  const filters = enabledFilters(settings);
  const judges = new Map<FilteredKind, Judge>();
  for (const kind of ['event', 'transaction', 'security'] as const) {
    const own = filters.filter((filter) => filter.kinds.includes(kind));
    if (own.length > 0) judges.set(kind, { filters: own, mayMatch: createGate(own, plan) });
  }

  /** The id of the first filter that drops `item`, if any. */
  const verdict = (item: EnvelopeItem, texts: ItemTexts): string | undefined => {
    const kind = filteredKind(item.type);
    const judge = kind && judges.get(kind);
    if (!judge?.mayMatch(item, texts)) return undefined;
    // Deeper than Sentry's parser allows: not ours to judge (upstream refuses it).
    if (exceedsDepth(item.payload, 0, item.payload.length, RELAY_MAX_JSON_DEPTH)) return undefined;
    const parsed = asObject(parsedPayload(item));
    if (!parsed) return undefined;
    return judge.filters.find((filter) => filter.matches(parsed))?.id;
  };

  return (items, texts = new ItemTexts()) => {
    if (judges.size === 0) return { items, dropped: NONE_DROPPED, discarded: NONE_DISCARDED };
    // Created at the first drop: most envelopes drop nothing and allocate nothing here.
    let reasons: Map<EnvelopeItem, string> | undefined;
    for (const item of items) {
      const reason = verdict(item, texts);
      if (reason === undefined) continue;
      reasons ??= new Map();
      reasons.set(item, reason);
    }
    if (reasons === undefined) return { items, dropped: NONE_DROPPED, discarded: NONE_DISCARDED };

    // Attachments belong to the envelope's event: they go with it, under its reason.
    const eventReason = [...reasons].find(([item]) => item.type !== 'raw_security' && item.type !== 'security')?.[1];
    const counts = new Map<string, Discarded>();
    const count = (reason: string, category: string, quantity: number) => {
      const key = `${reason}\u0000${category}`;
      const sum = counts.get(key);
      if (sum) sum.quantity += quantity;
      else counts.set(key, { reason, category, quantity });
    };
    const dropped: InboundFilterResult['dropped'] = [];
    const kept: EnvelopeItem[] = [];
    for (const item of items) {
      const reason = reasons.get(item) ?? (item.type === 'attachment' ? eventReason : undefined);
      if (reason === undefined) {
        kept.push(item);
        continue;
      }
      dropped.push({ type: item.type, reason });
      if (item.type === 'attachment') {
        // Relay counts attachments in bytes, and their number separately.
        count(reason, 'attachment', item.payload.length);
        count(reason, 'attachment_item', 1);
      } else count(reason, itemCategory(item.type, item.header) ?? 'default', 1);
    }
    return { items: kept, dropped, discarded: [...counts.values()] };
  };
}
