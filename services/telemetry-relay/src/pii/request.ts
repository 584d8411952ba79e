// The request interface (Relay's `$http`): the URL's query, cookies, headers and a form body are scrubbed as the
// key-value pairs Relay normalizes them into; `url` itself, `method` and the User-Agent header are not scrubbed.
import { scrubPairs } from './pairs.ts';
import type { PathNode } from './selector.ts';
import {
  type Container,
  child,
  type FieldKind,
  isObject,
  type Location,
  type Obj,
  remove,
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
          const scrubbed = scrubUrl(
            state,
            value,
            node,
            keyAt,
            field,
            'query_string' in request && request.query_string != null,
          );
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
      case 'fragment':
        walkValue(state, request, key, keyNode, keyAt, field);
        break;
    }
  }
}

/**
 * The URL's query is scrubbed as request.query_string pairs (Relay moves it there when the event has none); the
 * rest of the URL is not (Relay's snapshots keep `…/authenticate` whole: the url is no `pii = "true"` field).
 */
function scrubUrl(state: WalkState, url: string, request: PathNode, at: Location, field: FieldKind, hasQuery: boolean) {
  const hash = url.indexOf('#');
  const beforeHash = hash < 0 ? url : url.slice(0, hash);
  const question = hasQuery ? -1 : beforeHash.indexOf('?');
  if (question < 0) return undefined;
  const query = beforeHash.slice(question + 1);
  const scrubbed = scrubPairs(state, query, 'query', child(request, 'query_string'), at, field);
  if (scrubbed === undefined) return undefined;
  return `${beforeHash.slice(0, question + 1)}${scrubbed}${url.slice(beforeHash.length)}`;
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
