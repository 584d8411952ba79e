// Data scrubbing (src/pii) on the item types Relay scrubs (SCRUBBERS); the
// others pass as Relay's defaults leave them. A byte scan proves most items need nothing before any JSON is parsed; a
// changed item is re-serialized, the others keep their bytes.

import { RelayError } from '../core/errors.ts';
import { exceedsDepth, RELAY_MAX_JSON_DEPTH } from '../envelope/json-depth.ts';
import { hasDuplicateKeys } from '../envelope/json-members.ts';
import { createItem } from '../envelope/serialize.ts';
import type { EnvelopeItem } from '../envelope/types.ts';
import { scrubCheckIn } from '../pii/check-in.ts';
import { scrubContainer } from '../pii/containers.ts';
import {
  type CompiledScrub,
  compileScrub,
  type Hit,
  newMeta,
  type ScrubSettings,
  scrubEvent,
  walkChildren,
} from '../pii/index.ts';
import { scrubSession } from '../pii/sessions.ts';
import { scrubSpanV1 } from '../pii/span-v1.ts';
import { scrubUserReport } from '../pii/user-report.ts';
import type { Obj } from '../pii/walk.ts';
import { ScanPlan } from './item-scan.ts';
import { ItemTexts } from './item-text.ts';

/** The stage's settings, as a project configures them (projects/). */
export { DEFAULT_SCRUB_SETTINGS, type ScrubSettings } from '../pii/index.ts';

/** Scrubs a parsed item in place; returns what matched (empty: unchanged, the item keeps its bytes). */
type ItemScrubber = (parsed: Obj, compiled: CompiledScrub, item: EnvelopeItem) => Hit[];

const SPAN_V2 = 'application/vnd.sentry.items.span.v2+json';

/** Every item type that is scrubbed, and how (docs: services/telemetry-relay/README.md, "Data scrubbing"). */
const SCRUBBERS: ReadonlyMap<string, ItemScrubber> = new Map<string, ItemScrubber>([
  ['event', (parsed, c) => scrubEvent(parsed, c)],
  ['transaction', (parsed, c) => scrubEvent(parsed, c)],
  ['feedback', (parsed, c) => scrubEvent(parsed, c)],
  ['replay_event', (parsed, c) => scrubEvent(parsed, c, true)],
  [
    'span',
    (parsed, c, item) =>
      item.header.content_type === SPAN_V2 || Array.isArray(parsed.items)
        ? scrubContainer(parsed, c, 'span')
        : scrubSpanV1(parsed, c),
  ],
  ['log', (parsed, c) => scrubContainer(parsed, c, 'log')],
  ['trace_metric', (parsed, c) => scrubContainer(parsed, c, 'trace_metric')],
  ['user_report', scrubUserReport],
  ['check_in', scrubCheckIn],
  ['session', scrubSession],
  ['sessions', scrubSession],
  ['raw_security', scrubReport],
]);

/** The browser's CSP report as sent: its fields scrubbed, no `_meta` (not part of a report's format). */
function scrubReport(parsed: Obj, c: CompiledScrub): Hit[] {
  const state = { c, hits: [] as Hit[], meta: newMeta() };
  walkChildren(state, parsed, { key: 'csp' }, [], 'csp');
  return state.hits;
}
/** What an envelope with nothing scrubbed returns (no new array per envelope on the hot path). */
const NO_HITS: Hit[] = Object.freeze([]) as unknown as Hit[];

export interface ScrubResult {
  /** The items to send: the same array when nothing matched. */
  items: EnvelopeItem[];
  hits: Hit[];
}

export interface ScrubLimits {
  maxEventItemBytes: number;
  maxEnvelopeBytes: number;
}

/** undefined when the settings scrub nothing. `plan`: the byte scan shared with the other stages (item-scan.ts). */
export function createScrubber(
  settings: ScrubSettings,
  limits: ScrubLimits,
  plan = new ScanPlan(),
): ((items: EnvelopeItem[], envelopeBytes: number, texts?: ItemTexts) => ScrubResult) | undefined {
  const compiled = compileScrub(settings);
  if (!compiled) return undefined;
  const { prescan } = compiled;
  const scanned = plan.add(prescan.scanWords);
  const shapes = plan.addShapes(prescan.scanShapes);
  return (items, envelopeBytes, texts = new ItemTexts()) => {
    let out: EnvelopeItem[] | undefined;
    let hits = NO_HITS;
    /** The re-serialized envelope's size: held to the same limit as a received one. */
    let size = envelopeBytes;
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as EnvelopeItem;
      const scrubber = SCRUBBERS.get(item.type);
      if (scrubber === undefined) continue;
      const found = scanned !== 0 ? texts.found(item, plan) : 0;
      const shaped = shapes === 0 || (found & shapes) !== 0;
      if ((found & scanned) === 0 && !prescan(item.payload, texts.of(item), scanned !== 0, shaped)) continue;
      const scrubbed = scrubItem(item, compiled, scrubber);
      if (!scrubbed) continue;
      // An item within the event limit may not grow past it (larger items, not event-like, have the envelope's).
      if (scrubbed.item.payload.length > limits.maxEventItemBytes && item.payload.length <= limits.maxEventItemBytes) {
        throw new RelayError(
          'too_large',
          `item ${i + 1} (${item.type}) has ${scrubbed.item.payload.length} bytes once scrubbed, more than the ${limits.maxEventItemBytes} allowed`,
        );
      }
      size +=
        scrubbed.item.payload.length - item.payload.length + scrubbed.item.headerBytes.length - item.headerBytes.length;
      if (size > limits.maxEnvelopeBytes) {
        throw new RelayError(
          'too_large',
          `the envelope has ${size} bytes once scrubbed, more than the ${limits.maxEnvelopeBytes} allowed`,
        );
      }
      out ??= [...items];
      out[i] = scrubbed.item;
      hits = hits.concat(scrubbed.hits);
    }
    return { items: out ?? items, hits };
  };
}

function scrubItem(item: EnvelopeItem, compiled: CompiledScrub, scrubber: ItemScrubber) {
  const { payload } = item;
  if (exceedsDepth(payload, 0, payload.length, RELAY_MAX_JSON_DEPTH)) {
    throw new RelayError(
      'malformed',
      `a ${item.type} item nests arrays/objects deeper than ${RELAY_MAX_JSON_DEPTH} levels (Sentry's parser refuses it)`,
    );
  }
  const text = payload.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined; // not ours to judge: upstream answers for invalid items
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const hits = scrubber(parsed as Obj, compiled, item);
  // A key given twice: its first value is in the bytes, but the rules saw only the last (JSON.parse, like Relay's
  // serde_json, keeps that one). Such an item goes as its parse reads (docs/decisions/046).
  if (hits.length === 0 && !hasDuplicateKeys(text, parsed)) return undefined;
  // The header keeps its keys in place; only `length` changes (or is added).
  return {
    item: createItem({ ...item.header, type: item.type }, Buffer.from(JSON.stringify(parsed))),
    hits,
  };
}
