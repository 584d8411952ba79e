// The generic walk over untyped data (extra, tags, request data, frame vars, custom contexts), as Relay walks a
// `Value`: strings get the rules with their key; a number, array or object under a matching key is removed (null and an
// "x" remark); booleans and null are never touched; an array of two led by a string is tried as a pair first.
import { SENSITIVE_COOKIES } from './patterns.ts';
import { type PathNode, selects } from './selector.ts';
import type { CompiledScrub } from './settings.ts';
import { charLength, type Remark, removingRule, type StringRule, scrubString } from './strings.ts';

/** Bounded set for the metric's `field` label. */
export type FieldKind =
  | 'extra'
  | 'tags'
  | 'user'
  | 'request'
  | 'breadcrumb'
  | 'message'
  | 'exception'
  | 'frame'
  | 'context'
  | 'span'
  | 'sdk'
  | 'csp'
  | 'log'
  | 'metric'
  | 'replay'
  | 'session'
  | 'report'
  | 'check_in';

export interface Hit {
  rule: string;
  field: FieldKind;
}

export interface WalkState {
  c: CompiledScrub;
  hits: Hit[];
  /** `_meta` remarks by JSON location, as Relay lays them out (`{"": {"rem": […], "len": n}}`); from newMeta(). */
  meta: Record<string, unknown>;
}

export type Container = Record<string, unknown> | unknown[];
export type Obj = Record<string, unknown>;
export const isObject = (value: unknown): value is Obj =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
export type Location = ReadonlyArray<string | number>;

export const child = (parent: PathNode | undefined, key: string, type?: string): PathNode =>
  type === undefined ? { key, parent } : { key, type, parent };

/** A `_meta` node: without a prototype, a client's key (`__proto__`, `constructor`) is an ordinary member. */
export const newMeta = (): Obj => Object.create(null) as Obj;

/** Sets an own member, whatever its name: assigning `__proto__` would set the object's prototype instead. */
export const setOwn = (object: Obj, key: string, value: unknown): void => {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
};

export function addMeta(state: WalkState, at: Location, remarks: Remark[], len?: number): void {
  let node = state.meta;
  for (const part of at) {
    const key = String(part);
    let next = Object.hasOwn(node, key) ? (node[key] as Obj | undefined) : undefined;
    if (typeof next !== 'object' || next === null) {
      next = newMeta();
      setOwn(node, key, next);
    }
    node = next;
  }
  if (!Object.hasOwn(node, '')) setOwn(node, '', { rem: [] });
  const own = node[''] as { rem: Remark[]; len?: number };
  // Not push(...remarks): a value with 100 000 matches would overflow the stack as arguments.
  for (const remark of remarks) own.rem.push(remark);
  if (len !== undefined && own.len === undefined) own.len = len;
}

const isSafe = (state: WalkState, node: PathNode, leaf: string) => state.c.safe.some((s) => selects(s, node, leaf));

/** Session and CSRF cookies by name (Relay's SENSITIVE_COOKIES), in `cookies` or as span data's `…cookie.<name>`. */
export function isSensitiveCookie(node: PathNode): boolean {
  const key = node.key.toLowerCase();
  if (key.startsWith('http.request.header.cookie.')) return SENSITIVE_COOKIES.has(key.slice(27));
  return SENSITIVE_COOKIES.has(key) && node.parent?.key.toLowerCase() === 'cookies' && node.parent.parent !== undefined;
}

/**
 * A string at `node` after the rules: the main rules unless a safe field selects it, `@anything:filter` first for a
 * sensitive cookie. Returns the new value, or undefined when nothing matched; records hits and remarks.
 */
export function scrubText(
  state: WalkState,
  value: string,
  node: PathNode,
  at: Location,
  field: FieldKind,
  rules: readonly StringRule[] = state.c.fields,
): string | undefined {
  let applied = rules;
  if (rules === state.c.fields && isSafe(state, node, 'string')) applied = [];
  if (state.c.cookies && isSensitiveCookie(node) && value !== '') {
    state.hits.push({ rule: '@anything:filter', field });
    addMeta(state, at, [['@anything:filter', 's', 0, 10]], charLength(value));
    return '[Filtered]';
  }
  if (applied.length === 0) return undefined;
  const { mayMatch } = state.c;
  if (mayMatch && !mayMatch(value) && !mayMatch(node.key)) return undefined;
  const result = scrubString(value, node.key, applied);
  if (!result) return undefined;
  for (const rule of result.rules) state.hits.push({ rule, field });
  addMeta(state, at, result.remarks, charLength(value));
  return result.value;
}

/** Removes `container[key]` (sets null) with a remark: Relay's DeleteValueHard. */
export function remove(
  state: WalkState,
  container: Container,
  key: string | number,
  at: Location,
  rule: string,
  field: FieldKind,
) {
  (container as Record<string | number, unknown>)[key] = null;
  state.hits.push({ rule, field });
  addMeta(state, at, [[rule, 'x']]);
}

/** Scrubs `container[key]` and everything under it; `node` is its selector path, `at` its JSON location. */
export function walkValue(
  state: WalkState,
  container: Container,
  key: string | number,
  node: PathNode,
  at: Location,
  field: FieldKind,
): void {
  const value = (container as Record<string | number, unknown>)[key];
  if (typeof value === 'string') {
    const scrubbed = scrubText(state, value, node, at, field);
    if (scrubbed !== undefined) (container as Record<string | number, unknown>)[key] = scrubbed;
    return;
  }
  if (value === null || typeof value === 'boolean' || value === undefined) return;
  const leaf = Array.isArray(value) ? 'array' : typeof value === 'number' ? 'number' : 'object';
  if (state.c.cookies && isSensitiveCookie(node)) {
    remove(state, container, key, at, '@anything:filter', field);
    return;
  }
  if (!isSafe(state, node, leaf) && (state.c.mayMatch?.(node.key) ?? true)) {
    const rule = removingRule(state.c.fields, node.key);
    if (rule) {
      remove(state, container, key, at, rule, field);
      return;
    }
  }
  if (typeof value !== 'object') return;
  walkChildren(state, value as Container, node, at, field);
}

export function walkChildren(state: WalkState, value: Container, node: PathNode, at: Location, field: FieldKind) {
  if (Array.isArray(value)) {
    if (value.length === 2 && typeof value[0] === 'string' && value[1] !== null && value[1] !== undefined) {
      const before = state.hits.length;
      walkValue(state, value, 1, child(node, value[0]), [...at, 1], field);
      if (state.hits.length > before) return;
    }
    for (let i = 0; i < value.length; i++) walkValue(state, value, i, child(node, String(i)), [...at, i], field);
    return;
  }
  for (const k of Object.keys(value)) walkValue(state, value, k, child(node, k), [...at, k], field);
}

/** A typed pair list (Relay's PairList: headers, cookies, query_string, tags): values scrubbed by key, keys kept. */
export function walkPairList(state: WalkState, list: unknown[], node: PathNode, at: Location, field: FieldKind): void {
  list.forEach((pair, i) => {
    if (Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string') {
      walkValue(state, pair, 1, child(node, pair[0]), [...at, i, 1], field);
    }
  });
}
