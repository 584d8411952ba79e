// The request interface (Relay's `$http`): the URL's query, cookies, headers and a form body are scrubbed as the
// key-value pairs Relay normalizes them into, the URL's fragment as the `request.fragment` Relay moves it to, keys
// unknown to Relay as its `request.other`; the rest of `url`, `method` and the User-Agent header are not scrubbed.
import { scrubPairs } from './pairs.ts';
import type { PathNode } from './selector.ts';
import { charLength, type Remark } from './strings.ts';
import {
  addMeta,
  type Container,
  child,
  type FieldKind,
  isObject,
  type Location,
  newMeta,
  type Obj,
  remove,
  scrubText,
  type WalkState,
  walkPairList,
  walkValue,
} from './walk.ts';

/** A form body (Relay parses it into fields); anchored, each part's class excludes the next separator: linear. */
export const FORM_BODY = /^[^=&\s{[]+=[^&\s]*(?:&[^=&\s]+=[^&\s]*)*$/;

export function scrubRequest(state: WalkState, request: Obj, node: PathNode, at: Location, field: FieldKind): void {
  const c = state.c;
  for (const key of Object.keys(request)) {
    const value = request[key];
    const keyNode = child(node, key);
    const keyAt = [...at, key];
    switch (key) {
      case 'url':
        if (typeof value === 'string') {
          const scrubbed = scrubUrl(state, value, node, keyAt, field);
          if (scrubbed !== undefined) request.url = scrubbed;
        }
        break;
      case 'query_string':
      case 'cookies':
        if (typeof value === 'string') {
          const text = key === 'query_string' ? value.replace(/^\?/, '') : value;
          const scrubbed = scrubPairs(state, text, key === 'cookies' ? 'cookie' : 'query', keyNode, keyAt, field);
          if (scrubbed !== undefined)
            request[key] = key === 'query_string' && value.startsWith('?') ? `?${scrubbed}` : scrubbed;
        } else if (Array.isArray(value)) walkPairList(state, value, keyNode, keyAt, field);
        else walkValue(state, request, key, keyNode, keyAt, field);
        break;
      case 'headers':
        scrubHeaders(state, value, node, keyNode, keyAt, field);
        break;
      case 'data':
        if (typeof value === 'string' && FORM_BODY.test(value)) {
          // A form body (Relay parses it into fields).
          const scrubbed = scrubPairs(state, value, 'query', keyNode, keyAt, field);
          if (scrubbed !== undefined) request.data = scrubbed;
        } else walkValue(state, request, key, keyNode, keyAt, field);
        break;
      case 'env':
        if (c.removeIpFields && isObject(value) && value.REMOTE_ADDR != null) {
          remove(state, value, 'REMOTE_ADDR', [...keyAt, 'REMOTE_ADDR'], '@anything:remove', field);
        }
        walkValue(state, request, key, keyNode, keyAt, field);
        break;
      case 'method':
      case 'body_size':
      case 'inferred_content_type':
      case 'api_target':
      case 'protocol':
        break; // typed fields Relay does not scrub
      default:
        // `fragment`, and any key Relay does not know (it keeps those in `request.other`, which is scrubbed).
        walkValue(state, request, key, keyNode, keyAt, field);
    }
  }
}

/**
 * The URL's query is scrubbed as request.query_string pairs and its fragment as request.fragment, one value: Relay
 * moves them there (normalize_url; with a `query_string` of its own the URL's query is dropped, here it is scrubbed
 * the same way). The rest of the URL is not (Relay's snapshots keep `…/authenticate`: no `pii = "true"` field).
 */
function scrubUrl(state: WalkState, url: string, request: PathNode, at: Location, field: FieldKind) {
  const hash = url.indexOf('#');
  const beforeHash = hash < 0 ? url : url.slice(0, hash);
  const question = beforeHash.indexOf('?');
  const remarks: Remark[] = [];
  /** Runs `scrub` on a scratch `_meta` and keeps its remarks, moved to where its text starts in the new URL. */
  const part = (scrub: (scratch: WalkState) => string | undefined, offset: () => number) => {
    const scratch: WalkState = { ...state, meta: newMeta() };
    const scrubbed = scrub(scratch);
    const own = (scratch.meta[''] as { rem: Remark[] } | undefined)?.rem ?? [];
    for (const r of own) remarks.push(r[1] === 's' ? [r[0], 's', r[2] + offset(), r[3] + offset()] : r);
    return scrubbed;
  };
  const query =
    question < 0
      ? undefined
      : part(
          (scratch) =>
            scrubPairs(scratch, beforeHash.slice(question + 1), 'query', child(request, 'query_string'), [], field),
          () => question + 1,
        );
  const base = query === undefined ? beforeHash : `${beforeHash.slice(0, question + 1)}${query}`;
  const fragment =
    hash < 0
      ? undefined
      : part(
          (scratch) => scrubText(scratch, url.slice(hash + 1), child(request, 'fragment'), [], field),
          () => base.length + 1,
        );
  if (query === undefined && fragment === undefined) return undefined;
  addMeta(state, at, remarks, charLength(url));
  return fragment === undefined ? `${base}${url.slice(beforeHash.length)}` : `${base}#${fragment}`;
}

/** Headers as an object or a list of pairs; User-Agent is never scrubbed; Cookie is scrubbed as request.cookies. */
function scrubHeaders(
  state: WalkState,
  headers: unknown,
  request: PathNode,
  node: PathNode,
  at: Location,
  field: FieldKind,
) {
  const one = (container: Container, key: string | number, name: string, valueAt: Location) => {
    const lower = name.toLowerCase();
    if (lower === 'user-agent') return;
    const value = (container as Record<string | number, unknown>)[key];
    if (lower === 'cookie' && typeof value === 'string') {
      const scrubbed = scrubPairs(state, value, 'cookie', child(request, 'cookies'), valueAt, field);
      if (scrubbed !== undefined) (container as Record<string | number, unknown>)[key] = scrubbed;
      return;
    }
    walkValue(state, container, key, child(node, name), valueAt, field);
  };
  if (isObject(headers)) {
    for (const name of Object.keys(headers)) one(headers, name, name, [...at, name]);
  } else if (Array.isArray(headers)) {
    headers.forEach((pair, i) => {
      if (Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string') one(pair, 1, pair[0], [...at, i, 1]);
    });
  }
}
