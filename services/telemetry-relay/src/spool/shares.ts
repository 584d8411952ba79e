// Each client (its network, service-kit's clientNetwork) may keep only a share of the spool's envelopes and bytes,
// so one client cannot fill it while upstream is down and turn a local condition into everyone's refusal.
// docs/decisions/011-spool-shares-and-full-spool.md.

/** Envelopes and their body bytes. */
export interface Tally {
  count: number;
  bytes: number;
}

const NONE: Readonly<Tally> = Object.freeze({ count: 0, bytes: 0 });

/** What each client keeps now; entries without a client (the relay's own client reports) are not tallied. */
export class ClientTally {
  readonly #by = new Map<string, Tally>();

  add(client: string | null | undefined, bytes: number): void {
    if (!client) return;
    const own = this.#by.get(client);
    if (own) {
      own.count++;
      own.bytes += bytes;
    } else this.#by.set(client, { count: 1, bytes });
  }

  remove(client: string | null | undefined, bytes: number): void {
    const own = client ? this.#by.get(client) : undefined;
    if (!own) return;
    own.count--;
    own.bytes -= bytes;
    if (own.count <= 0) this.#by.delete(client as string);
  }

  /** Sets a client's tally as a query over the stored rows found it. */
  set(client: string, tally: Tally): void {
    if (tally.count > 0) this.#by.set(client, { ...tally });
  }

  of(client: string | null | undefined): Readonly<Tally> {
    return (client && this.#by.get(client)) || NONE;
  }

  /** Clients keeping something (bounded by the spool's rows). */
  get clients(): number {
    return this.#by.size;
  }
}

export interface SpoolLimits {
  maxEnvelopes: number;
  maxBytes: number;
  perClientEnvelopes: number;
  perClientBytes: number;
}

/** Whether `size` more bytes fit: undefined, or which bound stops them (the whole spool, or the client's share). */
export function spoolRoom(limits: SpoolLimits, total: Tally, own: Tally, size: number): 'spool' | 'client' | undefined {
  if (total.count >= limits.maxEnvelopes || total.bytes + size > limits.maxBytes) return 'spool';
  if (own.count >= limits.perClientEnvelopes || own.bytes + size > limits.perClientBytes) return 'client';
  return undefined;
}
