// Collects a body into one buffer, charging the memory budget for each byte before it is kept, and hands the header
// line over as soon as it has arrived. A declared length is allocated once but charged as bytes arrive; what such
// allocations reserve ahead is bounded per process (AHEAD_LIMIT): docs/decisions/003-memory-budget.md.

import { RelayError } from '../core/errors.ts';
import type { Hold, Shortage } from '../core/memory/budget.ts';
import { NEWLINE } from '../envelope/bytes.ts';

const GROW_FROM = 256 * 1024;
export const AHEAD_LIMIT = 64 * 1024 * 1024;
let reservedAhead = 0;

export interface BodySinkOptions {
  hold: Hold;
  /** Most bytes accepted. */
  max: number;
  /** What the error messages call these bytes ("body", "decompressed body"). */
  what: string;
  /** A declared length (Content-Length of an uncompressed body): the buffer is allocated at it once. */
  expected?: number | undefined;
  maxHeaderBytes: number;
  onHeaderLine?: ((line: Buffer) => void) | undefined;
}

export interface BodySink {
  readonly size: number;
  /** Adds bytes; throws a RelayError (too large, budget short, header refused). */
  append(chunk: Buffer): void;
  /** The whole body (a view when one buffer holds it). */
  finish(): Buffer;
  /** Ends the sink's reservation ahead of arrival (the charge stays with the hold); call once, always. */
  dispose(): void;
}

export function createBodySink(options: BodySinkOptions): BodySink {
  const { hold, max, what, maxHeaderBytes, onHeaderLine } = options;
  let expected = options.expected !== undefined && options.expected <= max ? options.expected : undefined;
  let ahead = 0;
  let chunks: Buffer[] | undefined = [];
  let target: Buffer | undefined;
  let size = 0;
  let headerSeen = onHeaderLine === undefined;

  const prefix = (length: number): Buffer => {
    if (target) return target.subarray(0, length);
    const list = chunks as Buffer[];
    return list.length === 1 ? (list[0] as Buffer).subarray(0, length) : Buffer.concat(list, length);
  };
  const grow = (needed: number) => {
    if (target === undefined && expected !== undefined && needed <= expected) {
      if (reservedAhead + expected <= AHEAD_LIMIT) {
        ahead = expected;
        reservedAhead += ahead;
      } else expected = undefined;
    }
    const capacity =
      expected !== undefined && needed <= expected
        ? expected
        : Math.max(needed, Math.min(max, 2 * (target?.length ?? GROW_FROM)));
    const next = Buffer.allocUnsafeSlow(capacity);
    if (target) target.copy(next, 0, 0, size);
    else if (chunks) Buffer.concat(chunks, size).copy(next);
    chunks = undefined;
    target = next;
  };
  const lookForHeaderLine = (chunk: Buffer, before: number) => {
    const newline = chunk.indexOf(NEWLINE);
    if (newline !== -1 && before + newline <= maxHeaderBytes) {
      headerSeen = true;
      onHeaderLine?.(prefix(before + newline));
    } else if (before + (newline === -1 ? chunk.length : newline) > maxHeaderBytes) {
      throw new RelayError('too_large', `the envelope header line (line 1) is longer than ${maxHeaderBytes} bytes`);
    }
  };

  return {
    get size() {
      return size;
    },
    append(chunk) {
      const before = size;
      const needed = size + chunk.length;
      if (needed > max) throw new RelayError('too_large', `the ${what} is more than ${max} bytes`);
      charge(hold, chunk.length);
      if (chunks && needed <= GROW_FROM) chunks.push(chunk);
      else {
        if (!target || needed > target.length) grow(needed);
        chunk.copy(target as Buffer, size);
      }
      size = needed;
      if (!headerSeen) lookForHeaderLine(chunk, before);
    },
    finish() {
      const body = prefix(size);
      if (!headerSeen && size > 0) {
        headerSeen = true;
        onHeaderLine?.(body); // a header-only envelope: the whole body is its header line
      }
      return body;
    },
    dispose() {
      reservedAhead -= ahead;
      ahead = 0;
    },
  };
}

/** Takes `bytes` more from the hold, or throws the refusal the shortage calls for. */
export function charge(hold: Hold, bytes: number): void {
  if (bytes <= 0) return;
  const shortage = hold.grow(bytes);
  if (shortage !== undefined) throw shortageError(shortage, bytes);
}

/** Seconds a refused SDK waits before sending again (it honours Retry-After on any status). */
const OVERLOAD_RETRY_SECONDS = 5;

function shortageError(shortage: Shortage, bytes: number): RelayError {
  const headers = {
    'retry-after': String(OVERLOAD_RETRY_SECONDS),
    'x-sentry-rate-limits': `${OVERLOAD_RETRY_SECONDS}::key:relay_${shortage === 'budget' ? 'overloaded' : 'client_overloaded'}`,
  };
  return shortage === 'budget'
    ? new RelayError('overloaded', `the relay has no memory free for ${bytes} more bytes now; retry later`, headers)
    : new RelayError(
        'client_overloaded',
        `this client already holds its share of the relay's memory; ${bytes} more bytes refused, retry later`,
        headers,
      );
}
