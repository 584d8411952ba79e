// IPv4 CIDR arithmetic for the egress policy test: which address ranges a NetworkPolicy ipBlock lets through.

export interface Range {
  first: number;
  last: number;
}

/** An IPv4 CIDR as its first and last address; throws on anything else (IPv6 blocks need their own rules). */
export function parseCidr(cidr: string): Range {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr);
  const octets = match?.slice(1, 5).map(Number) ?? [];
  const bits = Number(match?.[5]);
  if (!match || octets.some((o) => o > 255) || bits > 32) throw new Error(`not an IPv4 CIDR: ${cidr}`);
  const address = octets.reduce((sum, o) => sum * 256 + o, 0);
  const size = 2 ** (32 - bits);
  const first = address - (address % size);
  return { first, last: first + size - 1 };
}

const overlaps = (a: Range, b: Range) => a.first <= b.last && b.first <= a.last;
const covers = (outer: Range, inner: Range) => outer.first <= inner.first && inner.last <= outer.last;

/** Whether an ipBlock (cidr minus except) lets any address of `forbidden` through. */
export function reaches(block: { cidr: string; except?: string[] }, forbidden: string): boolean {
  const range = parseCidr(forbidden);
  if (!overlaps(parseCidr(block.cidr), range)) return false;
  return !(block.except ?? []).some((e) => covers(parseCidr(e), range));
}
