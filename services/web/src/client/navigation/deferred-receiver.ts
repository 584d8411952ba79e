// The browser's side of deferred data (see framework/shared/deferred-data.ts): promises put where the server's loader data
// had them, settled by the document's streamed scripts at hydration or by page data's later lines.
import {
  DEFERRED_KEYS_ID,
  DEFERRED_QUEUE,
  type DeferredKeys,
  type DeferredSettlement,
} from '../../framework/shared/deferred-data.ts';
import { reviveRouteError } from '../../framework/shared/page-data-protocol.ts';

declare global {
  interface Window {
    /** Settled parts pushed by the document's scripts; replaced by a live receiver at hydration. */
    [DEFERRED_QUEUE]?: { push(settlement: DeferredSettlement): void };
    __staticRouterHydrationData?: { loaderData?: Record<string, unknown> };
  }
}

type Thenable = Promise<unknown> & { status?: string; value?: unknown; reason?: unknown };

export interface DeferredReceiver {
  settle(settlement: DeferredSettlement): void;
  /** The parts still pending when their source ended (a broken stream) fail with this. */
  failPending(error: unknown): void;
}

function withResolvers() {
  let resolve: (value: unknown) => void = () => {};
  let reject: (reason: unknown) => void = () => {};
  const promise: Thenable = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * Puts a promise at every deferred key of the loader data (in place) and returns what settles them. A settled
 * promise carries React's status fields, so <Await> renders it at once (hydration matches the server's HTML).
 */
export function attachDeferred(loaderData: Record<string, unknown>, keys: DeferredKeys): DeferredReceiver {
  const pending = new Map<string, { promise: Thenable; resolve(v: unknown): void; reject(e: unknown): void }>();
  for (const [routeId, names] of Object.entries(keys)) {
    const data = loaderData[routeId];
    if (typeof data !== 'object' || data === null) continue;
    for (const key of names) {
      const slot = withResolvers();
      // A part no view renders any more (the user moved on) must not be an unhandled rejection.
      slot.promise.catch(() => {});
      (data as Record<string, unknown>)[key] = slot.promise;
      pending.set(`${routeId}\u0000${key}`, slot);
    }
  }
  const finish = (id: string, outcome: { value: unknown } | { reason: unknown }) => {
    const slot = pending.get(id);
    if (!slot) return;
    pending.delete(id);
    if ('value' in outcome) {
      Object.assign(slot.promise, { status: 'fulfilled', value: outcome.value });
      slot.resolve(outcome.value);
    } else {
      Object.assign(slot.promise, { status: 'rejected', reason: outcome.reason });
      slot.reject(outcome.reason);
    }
  };
  return {
    settle(settlement) {
      const id = `${settlement.routeId}\u0000${settlement.key}`;
      finish(id, 'error' in settlement ? { reason: reviveRouteError(settlement.error) } : { value: settlement.value });
    },
    failPending(error) {
      for (const id of [...pending.keys()]) finish(id, { reason: error });
    },
  };
}

/** Before the router is created: the hydration data's deferred keys become promises, settled by the scripts. */
export function reviveDeferredHydration(): void {
  const text = document.getElementById(DEFERRED_KEYS_ID)?.textContent;
  const loaderData = window.__staticRouterHydrationData?.loaderData;
  if (!text || !loaderData) return;
  const receiver = attachDeferred(loaderData, JSON.parse(text) as DeferredKeys);
  const arrived = window[DEFERRED_QUEUE];
  if (Array.isArray(arrived)) for (const settlement of arrived as DeferredSettlement[]) receiver.settle(settlement);
  window[DEFERRED_QUEUE] = { push: (settlement) => receiver.settle(settlement) };
}
