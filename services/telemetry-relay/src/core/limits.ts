// What one request may be, shared by the layers that enforce it: the routes, the body reader and the parser.

/** What one request may be: read by the routes, the body reader (pipeline/read-body.ts) and the parser (envelope/parse.ts). */
export interface RequestLimits {
  maxBodyBytes: number;
  maxEnvelopeBytes: number;
  maxEventItemBytes: number;
  maxItems: number;
  maxHeaderBytes: number;
  maxItemHeaderBytes: number;
  maxTotalHeaderBytes: number;
  bodyTimeoutMs: number;
  /** After a refusal sent before the body arrived: how long the rest is still read and dropped (service-kit linger.ts). */
  refusedBodyLingerMs: number;
  /** A compressed body may expand to at most this many times its size (beyond a 1 MiB floor). */
  maxDecompressionRatio: number;
}

/**
 * An item header holds a type, a length, a content type and at most a file name (255 bytes on common file systems,
 * 1.5 KiB written as \u escapes): 8 KiB leaves five times that, and bounds what JSON.parse sees per item.
 */
export const DEFAULT_MAX_ITEM_HEADER_BYTES = 8 * 1024;
/** A full 64 KiB envelope header plus 1000 items (MAX_ITEMS' default) of ~190-byte headers. */
export const DEFAULT_MAX_TOTAL_HEADER_BYTES = 256 * 1024;
