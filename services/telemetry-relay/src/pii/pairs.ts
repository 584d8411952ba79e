// Cookie headers, query strings and form bodies scrubbed as Relay does after normalizing them into fields (so
// `password=…` in a URL is caught by key): the same pairs under the same paths (request.cookies.<name>,
// request.query_string.<name>), written back in the form they came in, so only the secret changes.
import type { PathNode } from './selector.ts';
import type { Remark } from './strings.ts';
import { addMeta, child, type FieldKind, type Location, newMeta, scrubText, type WalkState } from './walk.ts';

export type PairForm = 'cookie' | 'query';

const decode = (text: string): string => {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
};

/** Brackets stay readable: `[Filtered]` reads the same in a URL as in Relay's fields. */
const encode = (text: string): string => encodeURIComponent(text).replaceAll('%5B', '[').replaceAll('%5D', ']');

/** The string with each pair's value scrubbed under `node.<key>`, or undefined when nothing matched. */
export function scrubPairs(
  state: WalkState,
  text: string,
  form: PairForm,
  node: PathNode,
  at: Location,
  field: FieldKind,
): string | undefined {
  const separator = form === 'cookie' ? /([;,]\s*)/ : /(&)/;
  const parts = text.split(separator);
  let changed = false;
  const remarks: Remark[] = [];
  let out = '';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    const eq = part.indexOf('=');
    if (i % 2 === 1 || eq < 0) {
      out += part;
      continue;
    }
    const rawKey = part.slice(0, eq);
    const rawValue = part.slice(eq + 1);
    const key = form === 'query' ? decode(rawKey) : rawKey.trim();
    const value = form === 'query' ? decode(rawValue) : rawValue;
    // Remarks of a pair go to a scratch meta: the string's own remark gets the ranges in the rewritten text.
    const scratch: WalkState = { ...state, meta: newMeta() };
    const scrubbed = scrubText(scratch, value, child(node, key), [], field);
    if (scrubbed === undefined) {
      out += part;
      continue;
    }
    changed = true;
    const written = form === 'query' ? encode(scrubbed) : scrubbed;
    const rule = scratch.hits[scratch.hits.length - 1]?.rule ?? '';
    out += `${rawKey}=`;
    remarks.push([rule, 's', out.length, out.length + written.length]);
    out += written;
  }
  if (!changed) return undefined;
  addMeta(state, at, remarks, text.length);
  return out;
}
