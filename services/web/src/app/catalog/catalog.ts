// The catalog's data and the rules for reading it: pure functions over the JSON file that ships with the service.
import catalog from './catalog.json' with { type: 'json' };

export interface CatalogItem {
  id: number;
  slug: string;
  name: string;
  category: string;
  priceCents: number;
  inStock: boolean;
  description: string;
}

/** What the list shows of an item: its page data and the document's hydration data carry no more. */
export type CatalogListItem = Pick<CatalogItem, 'id' | 'slug' | 'name' | 'priceCents' | 'inStock'>;

export interface CatalogPage {
  items: CatalogListItem[];
  query: string;
  page: number;
  pageCount: number;
  total: number;
  limit: number;
}

/** The item page's data: the item at once, its related items later (deferred: streamed into the page). */
export interface CatalogItemData {
  item: CatalogItem;
  related: Promise<CatalogItem[]>;
}

export const MAX_PAGE_SIZE = 50;
const RELATED_COUNT = 3;
const items: CatalogItem[] = catalog.items;
// A Map: a slug is user input, and a plain object would answer `constructor` or `__proto__` from its prototype.
const moved = new Map(Object.entries(catalog.moved));
const bySlug = new Map(items.map((item) => [item.slug, item]));
// Made once: a list page's items are slices of these, never copied per request.
const listed: CatalogListItem[] = items.map(({ id, slug, name, priceCents, inStock }) => ({
  id,
  slug,
  name,
  priceCents,
  inStock,
}));

/** Longest search text read (longer ones are cut): no item name comes near. */
export const MAX_QUERY_LENGTH = 100;

export function searchCatalog(query: string, page: number, limit: number): CatalogPage {
  const needle = query.trim().toLowerCase();
  const matching = needle ? listed.filter((item) => item.name.toLowerCase().includes(needle)) : listed;
  const pageCount = Math.max(1, Math.ceil(matching.length / limit));
  const current = Math.min(Math.max(1, page), pageCount);
  return {
    items: matching.slice((current - 1) * limit, current * limit),
    query: needle,
    page: current,
    pageCount,
    total: matching.length,
    limit,
  };
}

export function findItem(slug: string): CatalogItem | undefined {
  return bySlug.get(slug);
}

/** Where an old address now lives, if it moved. */
export function movedTo(slug: string): string | undefined {
  return moved.get(slug);
}

/** Other items of the same category: the ones after this item, wrapping around. */
export function relatedItems(item: CatalogItem): CatalogItem[] {
  const sameCategory = items.filter((other) => other.category === item.category);
  const at = sameCategory.findIndex((other) => other.id === item.id);
  const after = [...sameCategory.slice(at + 1), ...sameCategory.slice(0, at)];
  return after.slice(0, RELATED_COUNT);
}
