// One sampled byte scan per item for the words of every stage that searches the raw bytes: the ignore rules'
// literals, the inbound filters' needles and the scrub prescan's key words. Separate, they read the payload 13 times
// (one `includes` each, 0.1–1.3 µs apiece on the bench event); together they are one pass (docs/decisions/028).
import { foundWords, type TableWord, type WordTable, wordTable } from '../pii/byte-scan.ts';

export class ScanPlan {
  #words: TableWord[] = [];
  #groups = 0;
  #table: WordTable | undefined;

  /** Adds a stage's words (tableable, byte-scan.ts); returns the bit `found` sets when one occurs, 0 for none. */
  add(words: readonly TableWord[]): number {
    if (words.length === 0) return 0;
    if (this.#groups === 30) throw new Error('a scan plan holds at most 30 groups of words');
    const bit = 1 << this.#groups++;
    for (const word of words) this.#words.push({ ...word, bit });
    this.#table = undefined;
    return bit;
  }

  /** The bits of the groups with a word in `bytes`. */
  found(bytes: Uint8Array): number {
    if (this.#words.length === 0) return 0;
    this.#table ??= wordTable(this.#words);
    return foundWords(bytes, this.#table);
  }
}
