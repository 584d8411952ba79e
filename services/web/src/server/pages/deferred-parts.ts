// The server's side of deferred data (see framework/shared/deferred-data.ts): each promise a loader returned is made safe
// to send — a failure becomes a reported 500 carrying only its digest, a promise that never settles is cut off —
// and settles into a wire message, for the document's scripts and for page data's streamed lines.
import { Readable } from 'node:stream';
import { UNSAFE_ErrorResponseImpl as ErrorResponseImpl, isRouteErrorResponse } from 'react-router';
import { type DeferredSettlement, deferredEntries } from '../../framework/shared/deferred-data.ts';
import { type PageData, serializeRouteError, serverFailure } from '../../framework/shared/page-data-protocol.ts';
import { CLIENT_CLOSED_REQUEST } from './failures.ts';

export interface DeferredPart {
  routeId: string;
  key: string;
  /** Never rejects. */
  settled: Promise<DeferredSettlement>;
}

/** A deferred part still pending after this is failed (the document's render stops at the same limit). */
const DEFERRED_TIMEOUT_MS = 10_000;

function settleWithin(promise: PromiseLike<unknown>, ms: number): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`deferred data did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Replaces, in place, every top-level promise of the loader data by a safe one and returns the parts. `report`
 * reports a failure and returns its digest; a request the client abandoned reports nothing.
 */
export function prepareDeferred(
  loaderData: Record<string, unknown>,
  report: (error: unknown, where: string) => string,
  signal: AbortSignal,
  timeoutMs = DEFERRED_TIMEOUT_MS,
): DeferredPart[] {
  return deferredEntries(loaderData).map(({ routeId, key, promise }) => {
    const safe = settleWithin(promise, timeoutMs).catch((error: unknown) => {
      if (isRouteErrorResponse(error)) throw error;
      if (signal.aborted) throw new ErrorResponseImpl(CLIENT_CLOSED_REQUEST, 'Client Closed Request', null);
      throw serverFailure(report(error, `${routeId}.${key}`));
    });
    (loaderData[routeId] as Record<string, unknown>)[key] = safe;
    const settled = safe.then(
      (value): DeferredSettlement => ({ routeId, key, value }),
      (error: unknown): DeferredSettlement => ({ routeId, key, error: serializeRouteError(error) }),
    );
    return { routeId, key, settled };
  });
}

/** Page data with deferred parts: the page data as the first line, then one line per part as it settles. */
export function pageDataLines(first: PageData, parts: DeferredPart[]): Readable {
  async function* lines() {
    yield Buffer.from(`${JSON.stringify(first)}\n`);
    const pending = new Map(parts.map((part, i) => [i, part.settled.then((s) => [i, s] as const)]));
    while (pending.size > 0) {
      const [i, settlement] = await Promise.race(pending.values());
      pending.delete(i);
      yield Buffer.from(`${JSON.stringify(settlement)}\n`);
    }
  }
  return Readable.from(lines(), { objectMode: false });
}
