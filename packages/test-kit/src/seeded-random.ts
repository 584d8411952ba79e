// A seeded generator for the tests that compare a shortcut with its oracle on random payloads: a failure names an
// input that replays.

export interface SeededRandom {
  /** A whole number in [0, n). */
  next(n: number): number;
  pick<T>(items: readonly T[]): T;
}

export function seededRandom(seed: number): SeededRandom {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((state / 2 ** 31) * n);
  };
  return { next, pick: <T>(items: readonly T[]): T => items[next(items.length)] as T };
}

/** The near misses of `word` every byte-scan test tries, cut at `cut`: a letter missing, split by a quote, a letter
 * replaced by a latin1 one. */
export const nearMisses = (word: string, cut: number): string[] => [
  word.slice(0, cut) + word.slice(cut + 1),
  `${word.slice(0, cut)}"${word.slice(cut)}`,
  `${word.slice(0, cut)}\u00c0${word.slice(cut + 1)}`,
];
