// Drops error events an ignore rule matches (@app/telemetry-rules) and the envelope's attachments with them;
// other item types are never touched. Only events containing a rule literal are parsed (the prefilter never changes
// a decision); one nested deeper than Sentry's parser allows is refused before JSON.parse spends time on it.
import { type IgnoreRule, matchEvent } from '@app/telemetry-rules';
import { createPrefilter } from '@app/telemetry-rules/prefilter';
import { RelayError } from '../core/errors.ts';
import type { Discarded } from '../core/types.ts';
import { exceedsDepth, RELAY_MAX_JSON_DEPTH } from '../envelope/json-depth.ts';
import type { Envelope, EnvelopeItem } from '../envelope/types.ts';
import { tableable } from '../pii/byte-scan.ts';
import { ScanPlan } from './item-scan.ts';
import { ItemTexts } from './item-text.ts';
import { parsedPayload } from './parsed-event.ts';

export interface FilterResult {
  /** The items to keep (the envelope's own array when nothing was dropped). */
  items: EnvelopeItem[];
  /** Dropped items, for metrics: type and the rule that dropped the event. */
  dropped: Array<{ type: string; rule: string }>;
  /** Discarded outcomes for a client report. */
  discarded: Discarded[];
}

/** `plan`: the byte scan shared with the other stages (item-scan.ts), when the caller runs them all. */
export function createFilter(
  rules: readonly IgnoreRule[],
  plan = new ScanPlan(),
): (envelope: Envelope, texts?: ItemTexts) => FilterResult {
  const mayMatch = createRulePrefilter(rules, plan);
  return (envelope, texts = new ItemTexts()) => {
    const droppedEvents: Array<{ item: EnvelopeItem; rule: string }> = [];
    for (const item of envelope.items) {
      if (item.type !== 'event' || rules.length === 0 || !mayMatch(item, texts)) continue;
      if (exceedsDepth(item.payload, 0, item.payload.length, RELAY_MAX_JSON_DEPTH)) {
        throw new RelayError(
          'malformed',
          `the event item at offset ${item.payload.byteOffset - envelope.bytes.byteOffset} nests arrays/objects deeper than ${RELAY_MAX_JSON_DEPTH} levels (Sentry's parser refuses it)`,
        );
      }
      const event = parsedPayload(item);
      if (event === undefined) continue; // not ours to judge: upstream answers for invalid events
      const rule = matchEvent(event, rules);
      if (rule) droppedEvents.push({ item, rule: rule.id });
    }
    if (droppedEvents.length === 0) return { items: envelope.items, dropped: [], discarded: [] };

    const droppedItems = new Set<EnvelopeItem>(droppedEvents.map((d) => d.item));
    const dropped = droppedEvents.map((d) => ({ type: 'event', rule: d.rule }));
    let attachmentBytes = 0;
    let attachmentCount = 0;
    for (const item of envelope.items) {
      if (item.type === 'attachment') {
        droppedItems.add(item);
        dropped.push({ type: 'attachment', rule: droppedEvents[0]?.rule ?? '' });
        attachmentBytes += item.payload.length;
        attachmentCount++;
      }
    }
    const discarded: Discarded[] = [{ reason: 'filtered', category: 'error', quantity: droppedEvents.length }];
    if (attachmentCount > 0) {
      // Relay counts attachments in bytes, and their number separately.
      discarded.push({ reason: 'filtered', category: 'attachment', quantity: attachmentBytes });
      discarded.push({ reason: 'filtered', category: 'attachment_item', quantity: attachmentCount });
    }
    return { items: envelope.items.filter((item) => !droppedItems.has(item)), dropped, discarded };
  };
}

/**
 * The prefilter of @app/telemetry-rules (which still checks the rules), answered on the latin1 decode the stages
 * share, its ASCII literals in the shared scan: a byte string occurs in the bytes exactly when its latin1 decode
 * occurs in theirs.
 */
export function createRulePrefilter(
  rules: readonly IgnoreRule[],
  plan: ScanPlan,
): (item: EnvelopeItem, texts: ItemTexts) => boolean {
  createPrefilter(rules);
  const literals = rules.flatMap((rule) => rule.literals).map((l) => Buffer.from(l, 'utf8').toString('latin1'));
  const scanned = plan.add(literals.filter(tableable).map((text) => ({ text, exact: true })));
  const others = ['\\u', ...literals.filter((literal) => !tableable(literal))];
  return (item, texts) => {
    if (scanned !== 0 && (texts.found(item, plan) & scanned) !== 0) return true;
    const text = texts.of(item);
    for (const literal of others) if (text.includes(literal)) return true;
    return false;
  };
}
