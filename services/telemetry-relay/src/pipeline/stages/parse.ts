// The envelope as Sentry's Relay reads it (envelope/parse.ts): the header line as it arrives, the items once read.
import { type ParseLimits, parseEnvelope, parseEnvelopeHeader } from '../../envelope/parse.ts';
import type { Envelope, EnvelopeHeader } from '../../envelope/types.ts';
import { guarded, type Stage } from '../stage.ts';

/** The first line: one JSON object (400 otherwise). */
export const parseHeaderStage = (limits: ParseLimits): Stage<Buffer, EnvelopeHeader> =>
  guarded((line) => parseEnvelopeHeader(line, limits));

/** The items, as views into the body; a refusal names the item and byte offset. */
export const parseItemsStage = (limits: ParseLimits): Stage<{ body: Buffer; header: EnvelopeHeader }, Envelope> =>
  guarded(({ body, header }) => parseEnvelope(body, limits, header));
