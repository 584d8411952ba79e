// The attributes of span v2, log and trace metric items (Relay's EAP `Attributes`: `{"name": {"type", "value"}}`),
// scrubbed as Relay's legacy rules do (relay-pii eap.rs, AttributeMode::ValueOnly): each value under its attribute's
// name, unless Sentry's conventions exempt that name (attribute-conventions.ts); remarks at `attributes.<name>.value`.
import { UNSCRUBBED_ATTRIBUTES } from './attribute-conventions.ts';
import { scrubPairs } from './pairs.ts';
import type { PathNode } from './selector.ts';
import {
  child,
  type FieldKind,
  isObject,
  type Location,
  type Obj,
  remove,
  scrubText,
  type WalkState,
  walkValue,
} from './walk.ts';

const NAMES = UNSCRUBBED_ATTRIBUTES.trim().split(/\s+/);
const EXEMPT = new Set(NAMES.filter((name) => !name.endsWith('.<key>')));
/** `score.<key>` → `score.`: every name under the prefix. */
const EXEMPT_PREFIXES = NAMES.filter((name) => name.endsWith('.<key>')).map((name) => name.slice(0, -5));

/** Whether the conventions exempt `name` from the default rules (Relay: pii "maybe" or "false"). */
export const isExemptAttribute = (name: string): boolean =>
  EXEMPT.has(name) || EXEMPT_PREFIXES.some((prefix) => name.startsWith(prefix));

/**
 * Removed whatever they hold with SCRUB_IP_ADDRESSES: Relay's KNOWN_IP_FIELDS name `client.address` and the span tag
 * `user.ip`; `user.ip_address` is the event's `user.ip_address` as an attribute (a `{{auto}}` there is no address).
 */
const IP_ATTRIBUTES = new Set(['client.address', 'user.ip_address', 'sentry.user.ip']);

/**
 * Relay's REPLACE_ONLY_SELECTOR (convert.rs): AI prompts and tool results get only the message's partial rules, so
 * the product still reads them.
 */
const REPLACE_ONLY = new Set(
  [
    'input.messages',
    'prompt',
    'request.messages',
    'tool.call.arguments',
    'tool.input',
    'tool.call.result',
    'tool.output',
    'output.messages',
    'response.tool_calls',
    'response.text',
    'response.object',
    'tool.definitions',
    'request.available_tools',
    'tool.name',
  ]
    .map((name) => `gen_ai.${name}`)
    .concat(['mcp.prompt.result', 'mcp.tool.result.content']),
);

/** Scrubs each attribute's `value` in place; `at` is where `attributes` sits in the item. */
export function scrubAttributes(state: WalkState, attributes: Obj, node: PathNode, at: Location, field: FieldKind) {
  const c = state.c;
  for (const name of Object.keys(attributes)) {
    const attribute = attributes[name];
    if (!isObject(attribute) || attribute.value === undefined || attribute.value === null) continue;
    const valueAt = [...at, name, 'value'];
    const nameNode = child(node, name);
    if (c.removeIpFields && IP_ATTRIBUTES.has(name)) {
      remove(state, attribute, 'value', valueAt, '@anything:remove', field);
      continue;
    }
    const value = attribute.value;
    if (REPLACE_ONLY.has(name)) {
      if (typeof value !== 'string') continue;
      const scrubbed = scrubText(state, value, nameNode, valueAt, field, c.message);
      if (scrubbed !== undefined) attribute.value = scrubbed;
      continue;
    }
    if (isExemptAttribute(name)) continue;
    if (c.cookies && typeof value === 'string' && name.toLowerCase() === 'http.request.header.cookie') {
      // The whole Cookie header, read as cookie pairs as in span data (event.ts).
      const scrubbed = scrubPairs(state, value, 'cookie', child(node, 'cookies'), valueAt, field);
      if (scrubbed !== undefined) attribute.value = scrubbed;
      continue;
    }
    walkValue(state, attribute, 'value', nameNode, valueAt, field);
  }
}
