// Counts per key in fixed windows aligned to the epoch (as Relay's Redis quotas count), in memory, for at most
// `maxKeys` keys. Two generations instead of one LRU Map: evicting a Map's oldest entry one at a time costs V8 a
// scan over the holes deletions leave (a 1M-key flood took a minute); a generation is dropped whole instead.

interface Cell {
  slot: number;
  count: number;
}

export class WindowCounts {
  /** Keys used since the last generation turned over; `#old`, the generation before (read, moved up on use). */
  #young = new Map<string, Cell>();
  #old = new Map<string, Cell>();
  readonly #generationKeys: number;

  constructor(maxKeys: number) {
    this.#generationKeys = Math.max(1, Math.floor(maxKeys / 2));
  }

  /** Keys held now (≤ maxKeys): a key unused for a whole generation is forgotten. */
  get size(): number {
    return this.#young.size + this.#old.size;
  }

  /** The count of `key` in the window holding `now` (0 once that window has passed). */
  current(key: string, windowMs: number, now: number): number {
    const cell = this.#young.get(key) ?? this.#old.get(key);
    return cell !== undefined && cell.slot === Math.floor(now / windowMs) ? cell.count : 0;
  }

  /** Adds `quantity` to `key`'s count in the window holding `now`; returns the count after adding. */
  add(key: string, quantity: number, windowMs: number, now: number): number {
    const slot = Math.floor(now / windowMs);
    let cell = this.#young.get(key);
    if (cell === undefined) {
      cell = this.#old.get(key) ?? { slot, count: 0 };
      this.#old.delete(key);
      if (this.#young.size >= this.#generationKeys) {
        this.#old = this.#young;
        this.#young = new Map();
      }
      this.#young.set(key, cell);
    }
    if (cell.slot !== slot) {
      cell.slot = slot;
      cell.count = 0;
    }
    cell.count += quantity;
    return cell.count;
  }
}

/** Whole seconds from `now` to the end of the fixed window holding it (at least 1). */
export function secondsLeft(windowMs: number, now: number): number {
  return Math.max(1, Math.ceil(((Math.floor(now / windowMs) + 1) * windowMs - now) / 1000));
}
