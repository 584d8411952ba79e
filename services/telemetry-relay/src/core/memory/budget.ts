// One byte budget for everything the relay holds at once outside V8's heap; a part that cannot take what it needs
// does not allocate (the tunnel refuses, delivery spools, replay waits): docs/decisions/003-memory-budget.md.

/** Plain counters, no allocation: `take` and `release` sit on the hot path. */
export interface MemoryBudget {
  /** Bytes the budget allows in all. */
  readonly limit: number;
  /** Bytes taken now. */
  readonly used: number;
  /** Takes `bytes` when they fit and returns true; takes nothing and returns false when they do not. */
  take(bytes: number): boolean;
  /** Gives back bytes taken earlier. */
  release(bytes: number): void;
}

export function createMemoryBudget(limit: number): MemoryBudget {
  let used = 0;
  return {
    limit,
    get used() {
      return used;
    },
    take(bytes) {
      if (used + bytes > limit) return false;
      used += bytes;
      return true;
    },
    release(bytes) {
      used -= bytes;
      if (used < 0) throw new Error(`memory budget released ${-used} bytes more than it gave`);
    },
  };
}

/** Why a hold could not grow: the whole process is short, or this one client holds its share already. */
export type Shortage = 'budget' | 'client';

/** What one request (or one send) holds of the budget; released once, whatever happened. */
export interface Hold {
  readonly bytes: number;
  /** Takes `bytes` more, or says which limit stopped it (and takes nothing). */
  grow(bytes: number): Shortage | undefined;
  /** Gives back part of what this hold has (a buffer shrank or was handed over). */
  shrink(bytes: number): void;
  /** Gives back everything; further calls do nothing. */
  release(): void;
}

/**
 * Per-client fairness: a client (its network: `keyOf` maps the address `clientAddress` derives to it) may hold at
 * most `perClient` bytes of the budget at once, so one client trickling or bombing cannot take what everybody else
 * needs.
 */
export interface ClientShares {
  hold(client: string): Hold;
  /** Clients holding bytes now (bounded by the connections in flight). */
  readonly clients: number;
}

export function createClientShares(
  budget: MemoryBudget,
  perClient: number,
  keyOf: (client: string) => string = (client) => client,
): ClientShares {
  const held = new Map<string, number>();
  return {
    get clients() {
      return held.size;
    },
    hold: (client) => new ClientHold(budget, perClient, held, keyOf(client)),
  };
}

/** A class rather than closures: one small object per request on the hot path. */
class ClientHold implements Hold {
  bytes = 0;
  #released = false;
  readonly #budget: MemoryBudget;
  readonly #perClient: number;
  readonly #held: Map<string, number>;
  readonly #client: string;

  constructor(budget: MemoryBudget, perClient: number, held: Map<string, number>, client: string) {
    this.#budget = budget;
    this.#perClient = perClient;
    this.#held = held;
    this.#client = client;
  }

  grow(more: number): Shortage | undefined {
    if (this.#released) throw new Error('grow() on a released hold');
    const current = this.#held.get(this.#client) ?? 0;
    if (current + more > this.#perClient) return 'client';
    if (!this.#budget.take(more)) return 'budget';
    this.bytes += more;
    this.#held.set(this.#client, current + more);
    return undefined;
  }

  shrink(less: number): void {
    const amount = Math.min(less, this.bytes);
    this.bytes -= amount;
    this.#budget.release(amount);
    this.#give(amount);
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    if (this.bytes > 0) this.shrink(this.bytes);
  }

  #give(amount: number): void {
    const next = (this.#held.get(this.#client) ?? 0) - amount;
    if (next <= 0) this.#held.delete(this.#client);
    else this.#held.set(this.#client, next);
  }
}
