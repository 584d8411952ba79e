// Deferred data: a loader may return top-level promises beside its awaited data; the page renders without them and
// each part fills in as it settles, streamed in the document and in page data. React Router's data mode serializes
// such promises as {} (README, "Streaming"): this module is the wire format both sides share.
import type { SerializedRouteError } from './page-data-protocol.ts';

/** Which keys of which routes' loader data are promises, in the order they were found. */
export type DeferredKeys = Record<string, string[]>;

/** One settled promise on the wire: its value, or the route error it rejected with (never an Error's message). */
export type DeferredSettlement =
  | { routeId: string; key: string; value: unknown }
  | { routeId: string; key: string; error: SerializedRouteError };

/** Where the document's settlement scripts push (the client drains it at hydration, then listens). */
export const DEFERRED_QUEUE = '__deferredData';
/** The id of the document's JSON script that lists the deferred keys. */
export const DEFERRED_KEYS_ID = 'deferred-keys';

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';

/** The loader data's top-level promises. */
export function deferredEntries(
  loaderData: Record<string, unknown>,
): Array<{ routeId: string; key: string; promise: PromiseLike<unknown> }> {
  const found: Array<{ routeId: string; key: string; promise: PromiseLike<unknown> }> = [];
  for (const [routeId, data] of Object.entries(loaderData)) {
    if (typeof data !== 'object' || data === null || Array.isArray(data)) continue;
    for (const [key, value] of Object.entries(data)) {
      if (isThenable(value)) found.push({ routeId, key, promise: value });
    }
  }
  return found;
}

export function keysOf(entries: ReadonlyArray<{ routeId: string; key: string }>): DeferredKeys {
  const keys: DeferredKeys = {};
  for (const { routeId, key } of entries) keys[routeId] = [...(keys[routeId] ?? []), key];
  return keys;
}

/** Loader data with its promises replaced by null, for JSON (the keys travel separately). */
export function withoutPromises(loaderData: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(loaderData).map(([routeId, data]) => {
      if (typeof data !== 'object' || data === null || Array.isArray(data)) return [routeId, data];
      return [routeId, Object.fromEntries(Object.entries(data).map(([k, v]) => [k, isThenable(v) ? null : v]))];
    }),
  );
}
