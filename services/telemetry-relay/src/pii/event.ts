// Which fields of an event the rules reach, after Relay's schema (fields marked `pii = "true"`) minus its
// DATASCRUBBER_IGNORE list: frame paths, the message's formatted text (replace-only rules there), exception values,
// the User-Agent header, debug_meta. Sentry's typed contexts (browser, os, device…) are not scrubbed, custom ones are.
import { scrubPairs } from './pairs.ts';
import { scrubRequest } from './request.ts';
import type { PathNode } from './selector.ts';
import type { CompiledScrub } from './settings.ts';
import {
  type Container,
  child,
  type FieldKind,
  type Hit,
  type Location,
  newMeta,
  remove,
  scrubText,
  setOwn,
  type WalkState,
  walkChildren,
  walkPairList,
  walkValue,
} from './walk.ts';

const TYPED_CONTEXTS = new Set([
  'device',
  'os',
  'runtime',
  'app',
  'browser',
  'gpu',
  'trace',
  'profile',
  'replay',
  'monitor',
  'response',
  'otel',
  'cloud_resource',
  'culture',
  'flags',
  'nel',
  'performance_score',
  'spring',
  'state',
  'feedback',
  'user_report_v2',
  'chromium_stability_report',
  'ota_updates',
]);

import { isObject, type Obj } from './walk.ts';

/** `values` of a {values: […]} list, or the list itself (both forms are accepted by Sentry). */
const listOf = (value: unknown): unknown[] | undefined =>
  Array.isArray(value) ? value : isObject(value) && Array.isArray(value.values) ? value.values : undefined;
const listAt = (value: unknown, at: Location): Location => (Array.isArray(value) ? at : [...at, 'values']);

/**
 * Scrubs `event` in place; returns what matched (empty: unchanged). Adds Relay-style `_meta` remarks. `replay`: a
 * replay event (Relay's `Replay`), whose `urls` are scrubbed too.
 */
export function scrubEvent(event: Obj, c: CompiledScrub, replay = false): Hit[] {
  const state: WalkState = { c, hits: [], meta: newMeta() };
  for (const key of Object.keys(event)) {
    const value = event[key];
    const node = child(undefined, key, TYPE_OF.get(key));
    const at = [key];
    switch (key) {
      case 'extra':
      case 'tags':
      case 'user':
        if (key === 'user' && c.removeIpFields && isObject(value) && value.ip_address != null) {
          remove(state, value, 'ip_address', [key, 'ip_address'], '@anything:remove', 'user');
        }
        if (key === 'tags' && Array.isArray(value)) walkPairList(state, value, node, at, key);
        else if (typeof value === 'object' && value !== null) walkChildren(state, value as Container, node, at, key);
        break;
      case 'request':
        if (isObject(value)) scrubRequest(state, value, node, at, 'request');
        break;
      case 'logentry':
      case 'message':
        scrubMessage(state, event, key, node, at);
        break;
      case 'breadcrumbs':
        eachOf(value, at, (crumb, crumbAt) => {
          const crumbNode = child(node, String(crumbAt.at(-1)), 'breadcrumb');
          for (const field of ['message', 'data']) {
            if (Object.hasOwn(crumb, field))
              walkValue(state, crumb, field, child(crumbNode, field), [...crumbAt, field], 'breadcrumb');
          }
        });
        break;
      case 'exception':
        eachOf(value, at, (exception, exceptionAt) => {
          const exceptionNode = child(node, String(exceptionAt.at(-1)), 'exception');
          if (c.strict && typeof exception.value === 'string') {
            // SCRUB_STRICT: the full field rules (a password word or `api_key=` takes the whole value).
            const scrubbed = scrubText(
              state,
              exception.value,
              child(exceptionNode, 'value', 'error'),
              [...exceptionAt, 'value'],
              'exception',
            );
            if (scrubbed !== undefined) exception.value = scrubbed;
          }
          scrubMechanism(state, exception.mechanism, child(exceptionNode, 'mechanism'), [...exceptionAt, 'mechanism']);
          scrubStacktrace(state, exception.stacktrace, child(exceptionNode, 'stacktrace', 'stacktrace'), [
            ...exceptionAt,
            'stacktrace',
          ]);
        });
        break;
      case 'stacktrace':
        scrubStacktrace(state, value, child(undefined, key, 'stacktrace'), at);
        break;
      case 'threads':
        eachOf(value, at, (thread, threadAt) => {
          const threadNode = child(node, String(threadAt.at(-1)), 'thread');
          scrubStacktrace(state, thread.stacktrace, child(threadNode, 'stacktrace', 'stacktrace'), [
            ...threadAt,
            'stacktrace',
          ]);
        });
        break;
      case 'contexts':
        if (isObject(value)) scrubContexts(state, value, node, at);
        break;
      case 'spans':
        eachOf(value, at, (span, spanAt) => {
          const spanNode = child(node, String(spanAt.at(-1)), 'span');
          if (Object.hasOwn(span, 'description')) {
            walkValue(state, span, 'description', child(spanNode, 'description'), [...spanAt, 'description'], 'span');
          }
          scrubSpanData(state, span, child(spanNode, 'data'), [...spanAt, 'data'], 'span');
        });
        break;
      case 'sdk':
        if (c.removeIpFields && isObject(value) && value.client_ip != null) {
          remove(state, value, 'client_ip', [key, 'client_ip'], '@anything:remove', 'sdk');
        }
        if (c.removeIpFields && isObject(value)) neverInferIp(state, value);
        break;
      case 'urls':
        // Each URL alone: a list of two is no key-value pair here (Relay's process_array would read it as one).
        if (replay && Array.isArray(value)) {
          for (let i = 0; i < value.length; i++)
            walkValue(state, value, i, child(node, String(i)), [...at, i], 'replay');
        }
        break;
    }
  }
  if (state.hits.length > 0 && Object.keys(state.meta).length > 0) mergeMeta(event, state.meta);
  return state.hits;
}

/** A Map: the key is the client's, and a plain object would answer `constructor` from its prototype. */
const TYPE_OF: ReadonlyMap<string, string> = new Map([
  ['user', 'user'],
  ['request', 'http'],
  ['logentry', 'logentry'],
  ['sdk', 'sdk'],
]);

function eachOf(value: unknown, at: Location, visit: (item: Obj, itemAt: Location) => void): void {
  const list = listOf(value);
  if (!list) return;
  const base = listAt(value, at);
  list.forEach((item, i) => {
    if (isObject(item)) visit(item, [...base, i]);
  });
}

function scrubMessage(state: WalkState, event: Obj, key: string, node: PathNode, at: Location): void {
  const value = event[key];
  // The legacy `message` string is the formatted message (Relay moves it to logentry.formatted).
  if (typeof value === 'string') {
    const scrubbed = scrubText(state, value, child(node, 'formatted'), at, 'message', state.c.message);
    if (scrubbed !== undefined) event[key] = scrubbed;
    return;
  }
  if (!isObject(value)) return;
  if (typeof value.formatted === 'string') {
    const scrubbed = scrubText(
      state,
      value.formatted,
      child(node, 'formatted'),
      [...at, 'formatted'],
      'message',
      state.c.message,
    );
    if (scrubbed !== undefined) value.formatted = scrubbed;
  }
  for (const field of ['message', 'params']) {
    if (Object.hasOwn(value, field)) walkValue(state, value, field, child(node, field), [...at, field], 'message');
  }
}

/** `mechanism.data` (Relay: `pii = "true"`), walked as untyped data. */
function scrubMechanism(state: WalkState, mechanism: unknown, node: PathNode, at: Location): void {
  if (isObject(mechanism) && mechanism.data !== undefined) {
    walkValue(state, mechanism, 'data', child(node, 'data'), [...at, 'data'], 'exception');
  }
}

/**
 * SCRUB_IP_ADDRESSES: `sdk.settings.infer_ip = "never"`, so Sentry neither fills `user.ip_address` from the
 * connection (its legacy default for JavaScript events) nor keeps a `{{auto}}` (relay-event-normalization).
 */
function neverInferIp(state: WalkState, sdk: Obj): void {
  const settings = isObject(sdk.settings) ? sdk.settings : undefined;
  if (settings?.infer_ip === 'never') return;
  if (settings) settings.infer_ip = 'never';
  else sdk.settings = { infer_ip: 'never' };
  state.hits.push({ rule: 'infer_ip:never', field: 'sdk' });
}

/** A span's (or the trace context's) data; the whole Cookie header there is read as cookie pairs. */
export function scrubSpanData(state: WalkState, owner: Obj, node: PathNode, at: Location, field: FieldKind): void {
  const data = owner.data;
  if (!isObject(data)) {
    if (data !== undefined) walkValue(state, owner, 'data', node, at, field);
    return;
  }
  for (const key of Object.keys(data)) {
    const value = data[key];
    if (key.toLowerCase() === 'http.request.header.cookie' && typeof value === 'string' && state.c.cookies) {
      const scrubbed = scrubPairs(state, value, 'cookie', child(node, 'cookies'), [...at, key], field);
      if (scrubbed !== undefined) data[key] = scrubbed;
    } else walkValue(state, data, key, child(node, key), [...at, key], field);
  }
}

function scrubStacktrace(state: WalkState, stacktrace: unknown, node: PathNode, at: Location): void {
  if (!isObject(stacktrace) || !Array.isArray(stacktrace.frames)) return;
  stacktrace.frames.forEach((frame, i) => {
    if (!isObject(frame)) return;
    const frameNode = child(child(node, 'frames'), String(i), 'frame');
    const frameAt = [...at, 'frames', i];
    if (Object.hasOwn(frame, 'vars'))
      walkValue(state, frame, 'vars', child(frameNode, 'vars'), [...frameAt, 'vars'], 'frame');
    if (!state.c.strict) return;
    for (const path of ['filename', 'abs_path']) {
      const value = frame[path];
      if (typeof value !== 'string') continue;
      const rules = state.c.message.filter((rule) => rule.id === '@userpath:replace');
      const scrubbed = scrubText(state, value, child(frameNode, path), [...frameAt, path], 'frame', rules);
      if (scrubbed !== undefined) frame[path] = scrubbed;
    }
  });
}

function scrubContexts(state: WalkState, contexts: Obj, node: PathNode, at: Location): void {
  for (const name of Object.keys(contexts)) {
    const context = contexts[name];
    const type = isObject(context) && typeof context.type === 'string' ? context.type : name;
    const contextNode = child(node, name);
    const contextAt = [...at, name];
    if (!TYPED_CONTEXTS.has(type) && !TYPED_CONTEXTS.has(name)) {
      walkValue(state, contexts, name, contextNode, contextAt, 'context');
      continue;
    }
    if (!isObject(context)) continue;
    if (type === 'trace') scrubSpanData(state, context, child(contextNode, 'data'), [...contextAt, 'data'], 'context');
    // Typed contexts are left alone, except the fields Relay marks as personal in the response and feedback ones.
    const personal =
      type === 'response'
        ? ['cookies', 'headers', 'data']
        : type === 'feedback'
          ? ['message', 'contact_email', 'name']
          : [];
    for (const field of personal) {
      if (field === 'cookies' && typeof context[field] === 'string') {
        const scrubbed = scrubPairs(
          state,
          context[field] as string,
          'cookie',
          child(contextNode, 'cookies'),
          [...contextAt, field],
          'context',
        );
        if (scrubbed !== undefined) context[field] = scrubbed;
      } else if (Array.isArray(context[field])) {
        walkPairList(state, context[field] as unknown[], child(contextNode, field), [...contextAt, field], 'context');
      } else if (Object.hasOwn(context, field)) {
        walkValue(state, context, field, child(contextNode, field), [...contextAt, field], 'context');
      }
    }
  }
}

/** Adds our remarks to the event's `_meta` (kept if the SDK sent one); the SDK's members are read as own only. */
export function mergeMeta(event: Obj, meta: Obj): void {
  const merge = (into: Obj, from: Obj) => {
    for (const key of Object.keys(from)) {
      const value = from[key];
      const there = Object.hasOwn(into, key) ? into[key] : undefined;
      if (isObject(there) && isObject(value)) merge(there, value);
      else setOwn(into, key, value);
    }
  };
  const own = Object.hasOwn(event, '_meta') ? event._meta : undefined;
  if (isObject(own)) merge(own, meta);
  else setOwn(event, '_meta', meta);
}
