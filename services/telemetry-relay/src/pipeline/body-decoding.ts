// A compressed body's decoding: the decoder starts once the stream's first HEAD_BYTES arrived (the window they ask for
// charged first), and what it puts out is held to maxDecompressionRatio times the bytes received, beyond RATIO_FLOOR.
import type { Readable } from 'node:stream';
import { RelayError } from '../core/errors.ts';
import type { Hold } from '../core/memory/budget.ts';
import { type BodySink, charge } from './body-sink.ts';
import { type Decoder, type Encoding, HEAD_BYTES } from './decoders.ts';

/** Any body may decompress to this much, whatever its size. */
export const RATIO_FLOOR = 1024 * 1024;

/** How the read that owns the decoding ends. */
export interface ReadEnd {
  /** Runs `work`, ending the read with what it throws. */
  guard(work: () => void): void;
  /** Ends the read with an error, or the body. */
  finish(error: unknown, value?: Buffer): void;
}

export interface DecodingParts {
  encoding: Encoding;
  /** The Content-Encoding, for the errors. */
  name: string;
  hold: Hold;
  sink: BodySink;
  maxDecompressionRatio: number;
  /** The compressed body: paused while the decoder is full. */
  body: Readable;
  /** Bytes received so far. */
  wire(): number;
  end: ReadEnd;
}

export class BodyDecoding {
  readonly #parts: DecodingParts;
  #decoder: Decoder | undefined;
  #memory = 0;
  #head: Buffer[] | undefined = [];

  constructor(parts: DecodingParts) {
    this.#parts = parts;
  }

  /** A chunk received: buffered until the head is long enough, then decoded (the body paused while it is full). */
  write(chunk: Buffer): void {
    if (!this.#decoder) {
      (this.#head as Buffer[]).push(chunk);
      const buffered = Buffer.concat(this.#head as Buffer[]);
      if (buffered.length < HEAD_BYTES) return;
      this.#head = undefined;
      this.#start(buffered);
      chunk = buffered;
    }
    const decoder = this.#decoder as Decoder;
    if (!decoder.write(chunk)) {
      this.#parts.body.pause();
      decoder.once('drain', () => this.#parts.body.resume());
    }
  }

  /** The body ended: a short head is decoded now (an empty body is one); the decoder's end finishes the read. */
  end(): void {
    if (!this.#decoder) {
      const buffered = Buffer.concat(this.#head ?? []);
      this.#head = undefined;
      if (buffered.length === 0) {
        this.#parts.end.finish(undefined, this.#parts.sink.finish());
        return;
      }
      this.#start(buffered).write(buffered);
    }
    (this.#decoder as Decoder).end();
  }

  /** Destroys the decoder and gives its memory back. */
  dispose(): void {
    if (!this.#decoder) return;
    this.#decoder.removeAllListeners().on('error', () => {});
    this.#decoder.destroy();
    this.#parts.hold.shrink(this.#memory);
  }

  /** Charges the window `first` asks for and makes the decoder. */
  #start(first: Buffer): Decoder {
    const { encoding, name, hold, sink, end } = this.#parts;
    const memory = encoding.memory(first);
    if (memory === undefined) {
      throw new RelayError('too_large', `the ${name} stream asks for a larger window than the relay decodes`);
    }
    charge(hold, memory);
    this.#memory = memory;
    const decoder = encoding.create();
    this.#decoder = decoder;
    decoder.on('data', (chunk: Buffer) => end.guard(() => this.#decoded(chunk)));
    decoder.on('end', () => end.guard(() => end.finish(undefined, sink.finish())));
    decoder.on('error', (error: Error) =>
      end.finish(new RelayError('malformed', `the body is not valid ${name} data (${error.message})`)),
    );
    return decoder;
  }

  #decoded(chunk: Buffer): void {
    const { sink, maxDecompressionRatio: ratio } = this.#parts;
    const wire = this.#parts.wire();
    const allowed = Math.max(RATIO_FLOOR, wire * ratio);
    if (sink.size + chunk.length > allowed) {
      throw new RelayError(
        'too_large',
        `the body decompresses to more than ${ratio} times its ${wire} bytes (at most ${allowed} bytes here)`,
      );
    }
    sink.append(chunk);
  }
}
