// Sentry's generic filters (inbound_filters.py `_chunk_load_error_filter`, `_hydration_error_filter`; Relay's
// relay-filter/src/generic.rs): any exception whose type and value match one (type, value) pair of globs. On for a new
// project; the id is the outcome reason. Error events only: transactions carry no exceptions.
import { exceptions } from './event-fields.ts';
import { compileGlobs } from './glob.ts';
import type { InboundFilter } from './types.ts';

type Pair = readonly [type: string | undefined, value: string];

function exceptionCondition(pairs: readonly Pair[]) {
  const compiled = pairs.map(([type, value]) => ({
    type: type === undefined ? undefined : compileGlobs([type]),
    value: compileGlobs([value]),
  }));
  return (event: Record<string, unknown>) =>
    exceptions(event).some((exception) =>
      compiled.some(
        ({ type, value }) =>
          (type === undefined || (exception.type !== undefined && type.test(exception.type))) &&
          exception.value !== undefined &&
          value.test(exception.value),
      ),
    );
}

const CHUNK_LOAD_ERRORS: Pair[] = [
  // Webpack
  ['ChunkLoadError', 'Loading chunk *'],
  ['*Uncaught *', 'ChunkLoadError: Loading chunk *'],
  // Turbopack
  ['ChunkLoadError', 'Failed to load chunk *'],
  ['*Uncaught *', 'ChunkLoadError: Failed to load chunk *'],
  // Promise rejections
  ['Error', 'Uncaught (in promise): ChunkLoadError*'],
];

const HYDRATION_ERRORS: Pair[] = [
  [undefined, '*https://reactjs.org/docs/error-decoder.html?invariant={418,419,421,422,423,425}*'],
  [undefined, '*https://react.dev/errors/{418,419,421,422,423,425}*'],
];

export const chunkLoadError: InboundFilter = {
  id: 'chunk-load-error',
  kinds: ['event'],
  keys: ['value'],
  // Every pair's value names ChunkLoadError or the type does, and such a type comes with a "Loading/Failed" value.
  mayMatch: (_key, value) => /chunk/i.test(value),
  matches: exceptionCondition(CHUNK_LOAD_ERRORS),
};

export const reactHydrationErrors: InboundFilter = {
  id: 'react-hydration-errors',
  kinds: ['event'],
  keys: ['value'],
  mayMatch: (_key, value) => /react\.dev\/errors\/|reactjs\.org\/docs\/error-decoder/i.test(value),
  matches: exceptionCondition(HYDRATION_ERRORS),
};
