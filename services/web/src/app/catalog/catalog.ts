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

export interface CatalogPage {
  items: CatalogItem[];
  query: string;
  page: number;
  pageCount: number;
  total: number;
  limit: number;
}

export const MAX_PAGE_SIZE = 50;
const items: CatalogItem[] = catalog.items;
const moved: Record<string, string> = catalog.moved;
const bySlug = new Map(items.map((item) => [item.slug, item]));

export function searchCatalog(query: string, page: number, limit: number): CatalogPage {
  const needle = query.trim().toLowerCase();
  const matching = needle ? items.filter((item) => item.name.toLowerCase().includes(needle)) : items;
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
  return moved[slug];
}
