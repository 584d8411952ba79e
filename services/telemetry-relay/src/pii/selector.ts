// "Safe Fields" in Relay's selector syntax (relay-pii/src/selector.rs): dotted keys (`user.id`, quoted `'a.b'`),
// value types (`$user`, `$frame`…), `*` and `**`, matching the end of a value's path, keys in any case. What does not
// parse is a plain key, as Relay falls back to for safe fields.

/** Where a value sits: its key, the Relay value type of the field (user, http, frame…) if any, and its parent. */
export interface PathNode {
  key: string;
  type?: string | undefined;
  parent?: PathNode | undefined;
}

type Item = { kind: 'key'; key: string } | { kind: 'type'; type: string } | { kind: 'any' } | { kind: 'deep' };
export type Selector = readonly Item[];

const LEAF_TYPES = new Set(['string', 'number', 'boolean', 'array', 'object']);

export function parseSelector(text: string): Selector {
  const items: Item[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return [{ kind: 'key', key: text.toLowerCase() }];
      items.push({ kind: 'key', key: text.slice(i + 1, end).toLowerCase() });
      i = end + 1;
    } else {
      const dot = text.indexOf('.', i);
      const part = text.slice(i, dot < 0 ? text.length : dot);
      i = dot < 0 ? text.length : dot;
      if (part === '**') items.push({ kind: 'deep' });
      else if (part === '*') items.push({ kind: 'any' });
      else if (/^\$[a-z_]+$/.test(part)) items.push({ kind: 'type', type: part.slice(1) });
      else if (/^[\w\-+@:]+$/.test(part)) items.push({ kind: 'key', key: part.toLowerCase() });
      else return [{ kind: 'key', key: text.toLowerCase() }];
    }
    if (i < text.length) {
      if (text[i] !== '.') return [{ kind: 'key', key: text.toLowerCase() }];
      i++;
    }
  }
  return items;
}

function itemMatches(item: Item, node: PathNode, leafType: string | undefined): boolean {
  if (item.kind === 'any' || item.kind === 'deep') return true;
  if (item.kind === 'key') return node.key.toLowerCase() === item.key;
  if (LEAF_TYPES.has(item.type)) return leafType === item.type;
  return node.type === item.type;
}

function matchFrom(selector: Selector, index: number, node: PathNode | undefined, leafType?: string): boolean {
  if (index < 0) return true;
  const item = selector[index] as Item;
  if (item.kind === 'deep') {
    // zero or more segments
    for (let at: PathNode | undefined = node; ; at = at.parent) {
      if (matchFrom(selector, index - 1, at)) return true;
      if (!at) return false;
    }
  }
  if (!node || !itemMatches(item, node, leafType)) return false;
  return matchFrom(selector, index - 1, node.parent);
}

/** Whether the selector matches the value at `node` (whose JSON type is `leafType`). */
export const selects = (selector: Selector, node: PathNode, leafType: string): boolean =>
  selector.length > 0 && matchFrom(selector, selector.length - 1, node, leafType);
