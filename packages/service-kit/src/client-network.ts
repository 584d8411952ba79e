// Who "one client" is for fairness (the relay's memory and spool shares, the web's trace budget): a network, not an
// address. One IPv6 host is usually given a whole /64, so keying on the address would give it 2^64 shares; IPv4
// keeps /32 by default. IPv4-mapped IPv6 (::ffff:a.b.c.d, either spelling) counts as IPv4.

export interface NetworkPrefixes {
  /** Leading bits of an IPv4 address that name one client (1–32). */
  v4: number;
  /** Leading bits of an IPv6 address that name one client (1–128). */
  v6: number;
}

export const DEFAULT_PREFIXES: NetworkPrefixes = { v4: 32, v6: 64 };

/** Every text that is not an address shares this one key: garbage cannot mint shares. */
export const UNPARSABLE = 'unparsable';

/** Longest text read as an address (an IPv6 address with an embedded IPv4 and a short zone fits). */
const MAX_ADDRESS_CHARS = 64;

/** The key of `address`'s network under `prefixes`, e.g. `198.51.100.7`, `10.1.0.0/16`, `2001:db8:0:1::/64`. */
export function clientNetwork(address: string, prefixes: NetworkPrefixes): string {
  if (address.length > MAX_ADDRESS_CHARS) return UNPARSABLE;
  const v4 = parseIPv4(address);
  if (v4 !== undefined) return prefixes.v4 === 32 ? address : formatIPv4(v4, prefixes.v4); // canonical already
  const v6 = parseIPv6(address);
  if (v6 === undefined) return UNPARSABLE;
  if (isMappedIPv4(v6)) return formatIPv4((((v6[6] as number) << 16) | (v6[7] as number)) >>> 0, prefixes.v4);
  return formatIPv6(v6, prefixes.v6);
}

/** A function for the shares: the prefixes bound once. */
export function networkOf(prefixes: NetworkPrefixes): (address: string) => string {
  // The last answer kept (≤ MAX_ADDRESS_CHARS): envelopes arrive in runs by one client, so most calls parse nothing.
  let lastAddress: string | undefined;
  let lastNetwork = '';
  return (address) => {
    if (address !== lastAddress) {
      lastNetwork = clientNetwork(address, prefixes);
      lastAddress = address.length > MAX_ADDRESS_CHARS ? undefined : address;
    }
    return lastNetwork;
  };
}

function parseIPv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

/** Eight 16-bit groups, or undefined. A zone (`%eth0`) is dropped: it names an interface, not a network. */
function parseIPv6(text: string): number[] | undefined {
  const zone = text.indexOf('%');
  const bare = (zone === -1 ? text : text.slice(0, zone)).toLowerCase();
  const halves = bare.split('::');
  if (halves.length > 2) return undefined;
  const head = groups(halves[0] as string);
  const tail = halves.length === 2 ? groups(halves[1] as string) : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

/** The groups of one side of `::`; a dotted IPv4 may end the address (two groups). */
function groups(side: string): number[] | undefined {
  if (side === '') return [];
  const out: number[] = [];
  const parts = side.split(':');
  for (const [i, part] of parts.entries()) {
    if (i === parts.length - 1 && part.includes('.')) {
      const v4 = parseIPv4(part);
      if (v4 === undefined) return undefined;
      out.push(v4 >>> 16, v4 & 0xffff);
    } else if (/^[0-9a-f]{1,4}$/.test(part)) out.push(Number.parseInt(part, 16));
    else return undefined;
  }
  return out;
}

function isMappedIPv4(g: number[]): boolean {
  return g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff;
}

function formatIPv4(value: number, prefix: number): string {
  const masked = prefix === 0 ? 0 : (value & (0xffffffff << (32 - prefix))) >>> 0;
  const dotted = [24, 16, 8, 0].map((shift) => (masked >>> shift) & 0xff).join('.');
  return prefix === 32 ? dotted : `${dotted}/${prefix}`;
}

function formatIPv6(g: number[], prefix: number): string {
  const masked = g.map((group, i) => {
    const bits = Math.min(16, Math.max(0, prefix - i * 16));
    return bits === 0 ? 0 : group & (0xffff << (16 - bits)) & 0xffff;
  });
  // Full groups, no `::` compression: a key, not something a person reads.
  const text = masked.map((group) => group.toString(16)).join(':');
  return prefix === 128 ? text : `${text}/${prefix}`;
}
