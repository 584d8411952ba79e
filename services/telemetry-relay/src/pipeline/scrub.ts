// Stage 6b (after filter, before identity): data scrubbing (src/pii) on the items Relay scrubs — events, transactions, feedback and the CSP reports
// the relay builds; attachments and everything else pass as they are. A byte scan proves most items need nothing
// (prescan in pii/settings.ts) before any JSON is parsed; a changed item is re-serialized, the others keep their bytes.
import { exceedsDepth, RELAY_MAX_JSON_DEPTH } from '../envelope/json-depth.ts';
import { createItem } from '../envelope/serialize.ts';
import type { EnvelopeItem } from '../envelope/types.ts';
import { RelayError } from '../errors.ts';
import { compileScrub, type Hit, newMeta, type ScrubSettings, scrubEvent, walkChildren } from '../pii/index.ts';
import { ScanPlan } from './item-scan.ts';
import { ItemTexts } from './item-text.ts';

const SCRUBBED_TYPES = new Set(['event', 'transaction', 'feedback', 'raw_security']);
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
      if (!SCRUBBED_TYPES.has(item.type)) continue;
      const found = scanned !== 0 ? texts.found(item, plan) : 0;
      const shaped = shapes === 0 || (found & shapes) !== 0;
      if ((found & scanned) === 0 && !prescan(item.payload, texts.of(item), scanned !== 0, shaped)) continue;
      const scrubbed = scrubItem(item, compiled);
      if (!scrubbed) continue;
      if (scrubbed.item.payload.length > limits.maxEventItemBytes) {
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

function scrubItem(item: EnvelopeItem, compiled: NonNullable<ReturnType<typeof compileScrub>>) {
  const { payload } = item;
  if (exceedsDepth(payload, 0, payload.length, RELAY_MAX_JSON_DEPTH)) {
    throw new RelayError(
      'malformed',
      `a ${item.type} item nests arrays/objects deeper than ${RELAY_MAX_JSON_DEPTH} levels (Sentry's parser refuses it)`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined; // not ours to judge: upstream answers for invalid items
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const state = { c: compiled, hits: [] as Hit[], meta: newMeta() };
  let hits: Hit[];
  if (item.type === 'raw_security') {
    // The browser's report as sent: its fields scrubbed, no `_meta` (not part of a report's format).
    walkChildren(state, parsed as Record<string, unknown>, { key: 'csp' }, [], 'csp');
    hits = state.hits;
  } else hits = scrubEvent(parsed as Record<string, unknown>, compiled);
  if (hits.length === 0) return undefined;
  // The header keeps its keys in place; only `length` changes (or is added).
  return {
    item: createItem({ ...item.header, type: item.type }, Buffer.from(JSON.stringify(parsed))),
    hits,
  };
}
