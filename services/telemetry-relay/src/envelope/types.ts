// The parsed envelope every stage works on: views into the received bytes, never copies.

/** The envelope header, as parsed (unknown keys included). */
export type EnvelopeHeader = Readonly<Record<string, unknown>>;

/** One item of an envelope. Payload and header bytes are views into the received body (no copies). */
export interface EnvelopeItem {
  type: string;
  header: Readonly<Record<string, unknown>>;
  /** The item header line exactly as received (without its newline). */
  headerBytes: Buffer;
  payload: Buffer;
  /** The payload decoded as latin1, when the parser made it (the first small event-like item: parse.ts). */
  latin1?: string | undefined;
}

export interface Envelope {
  /** The whole envelope as received (decompressed), forwarded as is when nothing is removed. */
  bytes: Buffer;
  header: EnvelopeHeader;
  /** The envelope header line exactly as received (without its newline). */
  headerBytes: Buffer;
  items: EnvelopeItem[];
}
