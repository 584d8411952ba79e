// The longer lists the growth bench renders (bench/growth.ts): the service's catalog and the React Router peer's items,
// each repeated out to GROWTH_ITEMS entries with fresh ids, the same text weight per item as the originals. Pure
// functions; the Vite plugin (growth-vite.config.ts) and the peer's copy (growth-peer.ts) apply them.

/** The longest list the sweep asks for, and how many items each longer list holds (a page can then be full). */
export const GROWTH_MAX_ITEMS = 500;

interface CatalogJson {
  items: { id: number; slug: string; name: string }[];
  moved: Record<string, string>;
}

/** The catalog with `count` items: the originals, then copies with new ids, slugs and names. */
export function longerCatalog(json: string, count = GROWTH_MAX_ITEMS): string {
  const catalog = JSON.parse(json) as CatalogJson;
  const originals = catalog.items;
  const items = Array.from({ length: count }, (_, i) => {
    const item = originals[i % originals.length] as CatalogJson['items'][number];
    const copy = Math.floor(i / originals.length);
    if (copy === 0) return item;
    return { ...item, id: i + 1, slug: `${item.slug}-${copy + 1}`, name: `${item.name} ${copy + 1}` };
  });
  return JSON.stringify({ ...catalog, items });
}

const PAGE_SIZE_LINE = /export const MAX_PAGE_SIZE = \d+;/;

/** catalog.ts with its page-size cap raised; throws when the line moved, so the bench never measures the old cap. */
export function raisePageSizeCap(code: string, max = GROWTH_MAX_ITEMS): string {
  if (!PAGE_SIZE_LINE.test(code)) throw new Error('catalog.ts: `export const MAX_PAGE_SIZE = <n>;` not found');
  return code.replace(PAGE_SIZE_LINE, `export const MAX_PAGE_SIZE = ${max};`);
}

interface PeerItem {
  id: string;
  title: string;
  description: string;
  tags: string[];
}

/** The peer's items.json with `count` entries, numbered on as its own are ("Quiet Harbor #51 … (entry 51 of 500)"). */
export function longerPeerItems(json: string, count = GROWTH_MAX_ITEMS): string {
  const originals = JSON.parse(json) as PeerItem[];
  const items = Array.from({ length: count }, (_, i) => {
    const item = originals[i % originals.length] as PeerItem;
    const n = i + 1;
    const title = item.title.replace(/#\d+$/, `#${n}`);
    const description = item.description
      .replaceAll(item.title, title)
      .replace(/\(entry \d+ of \d+\)/, `(entry ${n} of ${count})`);
    return { ...item, id: `item-${String(n).padStart(3, '0')}`, title, description };
  });
  return JSON.stringify(items, null, 2);
}

const PEER_LOADER = /export async function loader\(\) \{\s*return \{ items \};\s*\}/;

/** The peer's route with a loader that honours `?limit=` (default: its 50, as the original serves). */
export function peerRouteWithLimit(code: string): string {
  if (!PEER_LOADER.test(code)) throw new Error("the peer's items route: `loader() { return { items }; }` not found");
  return code.replace(
    PEER_LOADER,
    `export async function loader({ request }) {
  const limit = Number(new URL(request.url).searchParams.get('limit')) || 50;
  return { items: items.slice(0, Math.min(Math.max(1, Math.trunc(limit)), ${GROWTH_MAX_ITEMS})) };
}`,
  );
}
