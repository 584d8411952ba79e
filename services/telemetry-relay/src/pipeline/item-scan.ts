// One sampled byte scan per item for the words of every stage that searches the raw bytes: the ignore rules'
// literals, the inbound filters' needles and the scrub prescan's key words. Separate, they read the payload 13 times
// (one `includes` each); together they are one pass (docs/decisions/028).
import { foundWords, type TableShape, type TableWord, type WordTable, wordTable } from '../pii/byte-scan.ts';

export class ScanPlan {
  #words: TableWord[] = [];
  #shapes: TableShape[] = [];
  #shapeBits = 0;
  #groups = 0;
  #table: WordTable | undefined;

  /** Adds a stage's words (tableable, byte-scan.ts); returns the bit `found` sets when one occurs, 0 for none. */
  add(words: readonly TableWord[]): number {
    if (words.length === 0) return 0;
    const bit = this.#nextBit();
    for (const word of words) this.#words.push({ ...word, bit });
    this.#table = undefined;
    return bit;
  }

  /** Adds a stage's shapes (byte-scan.ts, pii/number-shapes.ts): the bit `found` sets when one may occur. */
  addShapes(shapes: readonly TableShape[]): number {
    if (shapes.length === 0) return 0;
    const bit = this.#nextBit();
    for (const shape of shapes) this.#shapes.push({ ...shape, bit });
    this.#shapeBits |= bit;
    this.#table = undefined;
    return bit;
  }

  #nextBit(): number {
    if (this.#groups === 30) throw new Error('a scan plan holds at most 30 groups of words');
    return 1 << this.#groups++;
  }

  /** Builds the table now, at startup rather than inside the first request's turn. */
  prepare(): void {
    if (this.#words.length > 0) this.#table ??= wordTable(this.#words, this.#shapes);
  }

  /** The bits of the groups with a word (or shape) in `bytes`. */
  found(bytes: Uint8Array): number {
    // Without words there is no scan (no stride): every shape may occur.
    if (this.#words.length === 0) return this.#shapeBits;
    this.#table ??= wordTable(this.#words, this.#shapes);
    return foundWords(bytes, this.#table);
  }
}
